import type { WorkflowStep } from "../definitions/workflow.js";
import type { ReportResult, RunReporter } from "../hub/hub-report.js";
import type { Episode } from "../learning/episodes.js";
import { type DispatchManifest, stepManifest } from "../runs/manifest.js";
import type { StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";
import type { RunLog } from "./events.js";
import type { RunProgress } from "./options.js";

// How a run talks to its hub reporter: each call's failure is logged and shown, never thrown, and what each call
// came to is recorded in the `hub` field of the step result or run outcome it concerns.

/** One call to the hub, by name (`startRun`, `appendJournal`, `finishRun`). */
export type HubCall = (call: string, send: () => Promise<ReportResult>) => Promise<ReportResult>;

/** The `hub` field: `not_configured` without a reporter, else `reported` or `failed:<code>`. */
export function hubField(result: ReportResult | undefined): string {
  if (result === undefined) return "not_configured";
  return result.status === "reported" ? "reported" : `failed:${result.code}`;
}

/** Makes calls that log a `hub_report_failed` event and tell the caller when the hub refused or was not there. */
export function hubCalls(log: RunLog, run: Run, progress: (progress: RunProgress) => void): HubCall {
  return async (call, send) => {
    const result = await send();
    if (result.status === "failed") {
      log.event("hub_report_failed", { runId: run.runId, call, code: result.code });
      progress({ kind: "hub_report_failed", call, code: result.code });
    }
    return result;
  };
}

/**
 * Tells the hub of a finished step attempt (a journal entry with its manifest, its episode) and returns the
 * result's `hub` field.
 */
export async function reportStep(
  report: HubCall,
  reporter: RunReporter | undefined,
  run: Run,
  step: WorkflowStep,
  result: StepResult,
  episode: Episode,
  manifest: DispatchManifest,
): Promise<string> {
  if (!reporter) return hubField(undefined);
  const sent = await report("appendJournal", () =>
    reporter.stepFinished(run, {
      stepId: step.id,
      agent: step.agent,
      attempt: result.attempt,
      status: result.status,
      outcome: result.outcome,
      reason: result.reason,
      failure: episode.failure,
      durationMs: result.durationMs,
      evidenceRefs: result.evidence.map((line) => line.ref),
      manifest: stepManifest(manifest),
    }),
  );
  return hubField(sent);
}
