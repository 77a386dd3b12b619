import { writeFileWhole } from "@kxm/memory-git";
import type { ReportResult, RunReporter } from "../hub/hub-report.js";
import { outcomePath, RUN_OUTCOME_SCHEMA, type RunFinalStatus, type RunOutcome } from "../runs/results.js";
import { jsonText, type Run } from "../runs/runs.js";
import type { RunLog } from "./events.js";
import { type HubCall, hubField } from "./hub-calls.js";
import type { RunProgress } from "./options.js";

/** How a run ended, before it is told to the hub and written. */
export interface RunEnd {
  status: RunFinalStatus;
  failingStep: string | null;
  reason: string | null;
  /** The step blocked by the same failure twice, when that ended the run. */
  blockedStep: string | null;
  /** `consecutive_failures:<n>` when the breaker ended the run. */
  breakerCause: string | null;
}

/**
 * Ends a run: tells the hub (when there is a reporter), writes `outcome.json` whole, then logs and shows
 * `run_finished`. When the outcome cannot be written, the error that stopped the run (`failure`), if any, is the
 * one thrown.
 */
export async function finishRun(
  root: string,
  run: Run,
  end: RunEnd,
  failure: unknown,
  hooks: {
    log: RunLog;
    progress: (progress: RunProgress) => void;
    now: () => Date;
    report: HubCall;
    reporter: RunReporter | undefined;
  },
): Promise<RunOutcome> {
  const { log, progress, now, report, reporter } = hooks;
  let hub: ReportResult | undefined;
  if (reporter) {
    hub = await report("finishRun", () =>
      reporter.runFinished(run, {
        status: end.status,
        ...(end.failingStep === null ? {} : { failingStep: end.failingStep }),
      }),
    );
  }
  const outcome: RunOutcome = {
    schema: RUN_OUTCOME_SCHEMA,
    runId: run.runId,
    status: end.status,
    failingStep: end.failingStep,
    reason: end.reason,
    finishedAt: now().toISOString(),
    hub: hubField(hub),
    blockedStep: end.blockedStep,
    breakerCause: end.breakerCause,
  };
  try {
    await writeFileWhole(outcomePath(root, run.runId), jsonText(outcome));
  } catch (error) {
    throw failure ?? error;
  }
  log.event("run_finished", {
    runId: run.runId,
    status: outcome.status,
    failingStep: outcome.failingStep,
    blockedStep: outcome.blockedStep,
    breakerCause: outcome.breakerCause,
    hub: outcome.hub,
  });
  progress({ kind: "run_finished", run, outcome });
  return outcome;
}
