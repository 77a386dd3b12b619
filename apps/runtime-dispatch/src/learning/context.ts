import type { AgentsConfig } from "../definitions/agents.js";
import type { RunLog } from "../execution/events.js";
import type { RunOutcome, StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";
import type { LearningSettings } from "./settings.js";

// What a learner is and what it is given (after-run.ts runs them): a module of its own, so that the learners can
// name these types without importing the hook that imports them.

/** What every learner is given about the run that just ended. */
export interface LearnContext {
  root: string;
  run: Run;
  outcome: RunOutcome;
  /** Every step attempt's final result, in the order they ran. */
  attempts: StepResult[];
  settings: LearningSettings;
  agents: AgentsConfig;
  log: RunLog;
  now: () => Date;
  /** The environment agents start from (less the withheld variables). */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface Learner {
  /** Names it in the log and the report: `ledger`, `retrospective`, `distill`. */
  name: string;
  learn(context: LearnContext): Promise<void>;
}
