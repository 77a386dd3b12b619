import { isKxmError, RefListSchema, type StepManifest, StepManifestSchema } from "@kxm/contract";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import type { Run } from "../runs/runs.js";

// Step outcomes reported to a hub, when one is configured, through the contract's client only. Reporting is a
// courtesy: a hub that is down, slow or refuses a call never stops a run. Nothing of the prompt, the agent's output
// or memory is sent: a run's record, one journal entry per step (what happened, never what was said) with the
// step's manifest (the ids of what its prompt carried, never their text), and the finish that yields the run's
// episode.

/** Each call to the hub (a report, the withheld lookup) gets this long. */
export const HUB_TIMEOUT_MS = 5_000;

/** The hub a run reports to and asks what it withholds. */
export interface HubReportTarget {
  /** The hub's base URL. */
  url: string;
  /** An agent key of the run's project, or the admin token. */
  token?: string;
  fetch?: typeof fetch;
}

/** A finished step attempt as the hub sees it: its episode. */
export interface StepReport {
  stepId: string;
  agent: string;
  /** 1-based. */
  attempt: number;
  status: string;
  outcome: string | null;
  reason: string | null;
  /** The episode's failure (one redacted line); "" when the attempt did not fail. */
  failure: string;
  durationMs: number | null;
  evidenceRefs: string[];
  /** What the attempt's prompt carried (`stepManifest` of its manifest). */
  manifest: StepManifest;
}

export interface RunOutcomeReport {
  status: "succeeded" | "failed" | "cancelled";
  failingStep?: string;
}

/** What one report attempt came to: `reported`, or `failed` with the error code (never a message or a secret). */
export type ReportResult = { status: "reported" } | { status: "failed"; code: string };

export interface RunReporter {
  runStarted(run: Run): Promise<ReportResult>;
  stepFinished(run: Run, step: StepReport): Promise<ReportResult>;
  runFinished(run: Run, outcome: RunOutcomeReport): Promise<ReportResult>;
}

function codeOf(error: unknown): string {
  return isKxmError(error) ? error.code : "internal_error";
}

async function attempt(call: () => Promise<unknown>): Promise<ReportResult> {
  try {
    await call();
    return { status: "reported" };
  } catch (error) {
    return { status: "failed", code: codeOf(error) };
  }
}

/**
 * One line for the journal: `Step plan (planner) attempt 1 completed with outcome done in 12.3 s`, or
 * `Step plan (planner) attempt 2 failed: <failure> in 0.1 s` (a blocked attempt: its reason).
 */
function stepSummary(step: StepReport): string {
  let text = `Step ${step.stepId} (${step.agent}) attempt ${step.attempt} ${step.status.replace("_", " ")}`;
  if (step.outcome !== null) text += ` with outcome ${step.outcome}`;
  const why = step.status === "blocked" ? step.reason : step.failure || step.reason;
  if (why !== null && why !== "" && step.outcome === null) text += `: ${why}`;
  if (step.durationMs !== null) text += ` in ${(step.durationMs / 1000).toFixed(1)} s`;
  return text;
}

/**
 * A reporter for the hub at `target`. Once the run could not be recorded on the hub, later calls for it are not
 * attempted (they could only fail); each failed call is returned, so the caller can log it and go on.
 */
export function hubReporter(target: HubReportTarget): RunReporter {
  const client: HubClient = createHubClient({
    baseUrl: target.url,
    timeoutMs: HUB_TIMEOUT_MS,
    ...(target.token === undefined ? {} : { token: target.token }),
    ...(target.fetch === undefined ? {} : { fetch: target.fetch }),
  });
  let recorded = false;
  const skipped: ReportResult = { status: "failed", code: "run_not_recorded" };
  return {
    async runStarted(run) {
      const result = await attempt(() =>
        client.startRun({
          params: { project: run.project },
          body: { workflow: run.workflow.name, runId: run.runId },
        }),
      );
      recorded = result.status === "reported";
      return result;
    },
    async stepFinished(run, step) {
      if (!recorded) return skipped;
      const refs = RefListSchema.safeParse(step.evidenceRefs);
      // Built from checked ids, so it fits the contract; were it not to, the step is still reported without it.
      const manifest = StepManifestSchema.safeParse(step.manifest);
      return attempt(() =>
        client.appendJournal({
          params: { project: run.project, runId: run.runId },
          body: {
            category: step.status === "completed" ? "observation" : "error",
            summary: stepSummary(step),
            stage: step.stepId,
            ...(refs.success && refs.data.length > 0 ? { evidenceRefs: refs.data } : {}),
            ...(manifest.success ? { manifest: manifest.data } : {}),
          },
        }),
      );
    },
    async runFinished(run, outcome) {
      if (!recorded) return skipped;
      return attempt(() =>
        client.finishRun({
          params: { project: run.project, runId: run.runId },
          body: {
            outcome: outcome.status,
            ...(outcome.failingStep === undefined ? {} : { failingStep: outcome.failingStep }),
          },
        }),
      );
    },
  };
}
