import type { Workflow, WorkflowStep } from "../definitions/workflow.js";
import type { RunReporter } from "../hub/hub-report.js";
import type { WithheldLookup } from "../hub/hub-withheld.js";
import type { LearnerResult } from "../learning/after-run.js";
import type { RunOutcome, StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";

// What a caller hands executeRun, what it is told as the run goes on, and what it gets back.

/** Something a caller may show while a run goes on (the CLI prints one line each). */
export type RunProgress =
  | { kind: "run_started"; run: Run }
  | {
      kind: "step_started";
      run: Run;
      step: WorkflowStep;
      attempt: number;
      promptTokens: number;
      gaps: string[];
    }
  | { kind: "step_finished"; run: Run; result: StepResult }
  | { kind: "hub_report_failed"; call: string; code: string }
  | { kind: "run_finished"; run: Run; outcome: RunOutcome };

export interface ExecuteRunOptions {
  root: string;
  workflow: Workflow;
  prompt: string;
  /** The clock; a function so that each step's times are real. */
  now?: () => Date;
  runId?: string;
  project?: string;
  /** The environment agents start from (less `WITHHELD_ENV`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Reports to a hub; without one, results say `not_configured`. */
  reporter?: RunReporter;
  /**
   * Asks the run's hub, before each step attempt, which authored items it withholds; they are left out of the
   * step's dispatch context. Without one, dispatch reads local git only.
   */
  withheld?: WithheldLookup;
  /** Aborting stops the running agent and ends the run as cancelled. */
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress) => void;
  gitTimeoutMs?: number;
  gitBinary?: string;
}

export interface ExecutedRun {
  run: Run;
  outcome: RunOutcome;
  /** The latest attempt of each step that ran, in workflow order. */
  steps: StepResult[];
  /** Every attempt's final result, in the order they ran. */
  attempts: StepResult[];
  /** How each learner went after the run ended. */
  learning: LearnerResult[];
}
