import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { readJsonFile } from "../definitions/yaml-file.js";
import { loadStepResult, type StepResult } from "../runs/results.js";
import { loadRun, type Run } from "../runs/runs.js";
import { readEpisodes } from "./episodes.js";

// One finished run as its files tell it: run.json, every attempt's result (in the order they ran), the episodes
// that name the run, and outcome.json. What the retrospective and the distillation prompt are built from, so either
// can be rebuilt from disk alone.

/** outcome.json's fields the learners read; loose, so outcomes of every schema version read. */
const OutcomeFields = z.looseObject({
  status: z.string(),
  failingStep: z.string().nullable(),
  reason: z.string().nullable(),
  finishedAt: z.string(),
  blockedStep: z.string().nullable().optional(),
  breakerCause: z.string().nullable().optional(),
});
type OutcomeFields = z.infer<typeof OutcomeFields>;

/** One attempt with what the learning loop calls it (see the runtime guide's definitions). */
export interface AttemptRecord {
  result: StepResult;
  /** Completed with any allowed outcome. */
  progress: boolean;
  /** Completed with the first allowed outcome and every required evidence key. */
  verified: boolean;
  /** Failed, timed out or was blocked (a completed attempt with another outcome is not a failure). */
  failed: boolean;
  /** The episode's `tried`, else "". */
  tried: string;
  /** The episode's failure, else the runner's reason; "" for a verified attempt. */
  failure: string;
}

export interface RunRecord {
  run: Run;
  outcome: OutcomeFields | undefined;
  attempts: AttemptRecord[];
}

/** The most attempts a step may declare; reading stops at the first missing attempt anyway. */
const MAX_ATTEMPTS = 100;

/** The run's record, read from its folder. */
export async function readRunRecord(root: string, runId: string): Promise<RunRecord> {
  const run = await loadRun(root, runId);
  const outcome = await readJsonFile(root, `${KXM_PATHS.runs}/${run.runId}/outcome.json`, OutcomeFields);
  const { episodes } = await readEpisodes(root);
  const byAttempt = new Map(
    episodes
      .filter((episode) => episode.runId === run.runId)
      .map((episode) => [`${episode.stepId}\0${episode.attempt}`, episode]),
  );
  const attempts: AttemptRecord[] = [];
  for (const step of run.workflow.steps) {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const result = await loadStepResult(root, run.runId, step.id, attempt);
      if (result === undefined) break;
      const episode = byAttempt.get(`${step.id}\0${attempt}`);
      const status: string = result.status;
      const progress = status === "completed";
      const verified = progress && result.reason === null && result.missingEvidence.length === 0;
      const failed = status === "failed" || status === "timed_out" || status === "blocked";
      const failure = episode?.failure ?? (verified ? "" : (result.reason ?? status));
      attempts.push({ result, progress, verified, failed, tried: episode?.tried ?? "", failure });
    }
  }
  // Steps run one after another and a step's attempts back to back: this is the order they ran in.
  return { run, outcome, attempts };
}
