import type { WorkflowStep } from "../definitions/workflow.js";
import { EPISODE_SCHEMA, type Episode, episodeText, normalizeFailure } from "../learning/episodes.js";
import type { StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";
import type { AgentReport } from "./report.js";

// One step attempt as an episode: what it tried, whether it made progress and was verified, and why it failed.

/** An attempt that failed: it is retried while the step has attempts left, and counts toward the breaker. */
export function attemptFailed(status: StepResult["status"]): boolean {
  return status === "failed" || status === "timed_out" || status === "blocked";
}

/** The first non-empty line of the step's instructions: what an attempt tried when the agent did not say. */
function firstLine(instructions: string): string {
  return instructions.split(/\r?\n/).find((line) => line.trim() !== "") ?? "";
}

/**
 * Why an attempt failed, in one redacted line: the agent's `Failure:` line when it failed and gave one, else the
 * runner's reason; "" for an attempt that completed with the step's first allowed outcome. A completed attempt
 * with another outcome fails with its reason (`the step ended with outcome blocked`).
 */
export function attemptFailure(result: Pick<StepResult, "status" | "reason">, reported: AgentReport): string {
  if (result.status === "completed") return episodeText(result.reason ?? "");
  return episodeText(reported.failure ?? result.reason ?? result.status);
}

/** The episode of a finished attempt; `failure` is {@link attemptFailure}'s (kept when the attempt is blocked). */
export function attemptEpisode(
  run: Run,
  step: WorkflowStep,
  result: StepResult,
  reported: AgentReport,
  failure: string,
): Episode {
  const progress = result.status === "completed";
  return {
    schema: EPISODE_SCHEMA,
    at: result.finishedAt ?? result.startedAt,
    runId: run.runId,
    workflow: run.workflow.name,
    stepId: step.id,
    agent: step.agent,
    attempt: result.attempt,
    tried: episodeText(reported.tried ?? firstLine(step.instructions)),
    progress,
    verified: progress && result.reason === null && result.missingEvidence.length === 0,
    failure,
    failureKey: normalizeFailure(failure),
    durationMs: result.durationMs ?? 0,
  };
}

/**
 * The failure key an attempt 1 of `step` compares with: the latest episode (by time, then file order) of the same
 * workflow and step in an earlier run; `null` when there is none or it did not fail.
 */
export function earlierFailureKey(episodes: readonly Episode[], run: Run, stepId: string): string | null {
  let latest: Episode | undefined;
  for (const episode of episodes) {
    if (episode.runId === run.runId || episode.workflow !== run.workflow.name || episode.stepId !== stepId)
      continue;
    if (latest === undefined || episode.at >= latest.at) latest = episode;
  }
  if (latest === undefined || latest.progress || latest.failureKey === "") return null;
  return latest.failureKey;
}
