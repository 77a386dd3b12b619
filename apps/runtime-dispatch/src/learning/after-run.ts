import { isKxmError } from "@kxm/contract";
import type { LearnContext, Learner } from "./context.js";
import { distillLearner } from "./distill.js";
import { ledgerLearner } from "./ledger.js";
import { retrospectiveLearner } from "./retrospective.js";

// What the runner learns once a run has ended and its outcome is written: each learner in turn (the ledger
// rollup, the retrospective, distillation). A learner's failure is logged and reported, never thrown: it never
// changes the run's status.

export type { LearnContext, Learner } from "./context.js";

/** How one learner went. */
export type LearnerResult =
  | { name: string; status: "done" }
  | { name: string; status: "failed"; code: string };

/**
 * The learners, in the order they run: the ledger (from the run's files alone), distillation, then the retrospective,
 * which reports the distillation.
 */
const LEARNERS: Learner[] = [ledgerLearner, distillLearner, retrospectiveLearner];

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
