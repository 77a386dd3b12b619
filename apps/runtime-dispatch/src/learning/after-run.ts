import { isKxmError } from "@kxm/contract";
import type { AgentsConfig } from "../definitions/agents.js";
import type { RunLog } from "../execution/events.js";
import type { RunOutcome, StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";
import { ledgerLearner } from "./ledger.js";
import type { LearningSettings } from "./settings.js";

// What the runner learns once a run has ended and its outcome is written: each learner in turn (the ledger
// rollup, the retrospective, distillation). A learner's failure is logged and reported, never thrown: it never
// changes the run's status.

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

/** How one learner went. */
export type LearnerResult =
  | { name: string; status: "done" }
  | { name: string; status: "failed"; code: string };

/** The learners, in the order they run. */
const LEARNERS: Learner[] = [ledgerLearner];

/** Runs every learner (or `learners`, for tests) in order; each failure is logged as `learning_failed`. */
export async function learnFromRun(
  context: LearnContext,
  learners: readonly Learner[] = LEARNERS,
): Promise<LearnerResult[]> {
  const results: LearnerResult[] = [];
  for (const learner of learners) {
    try {
      await learner.learn(context);
      results.push({ name: learner.name, status: "done" });
    } catch (error) {
      const code = isKxmError(error) ? error.code : "internal_error";
      context.log.event("learning_failed", { runId: context.run.runId, learner: learner.name, code });
      results.push({ name: learner.name, status: "failed", code });
    }
  }
  return results;
}
