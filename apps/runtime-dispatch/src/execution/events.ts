import { join } from "node:path";
import { type Logger, pino } from "pino";
import { runDir } from "../runs/runs.js";

// A run's log: JSON lines in `.kxm/runs/<run-id>/events.jsonl`, one event per line with `event` naming it. Events
// carry ids, counts, gaps, codes and durations, never the run prompt, an instruction, an item's text or the
// agent's output.

/** The events a run logs, in the order they can happen. */
type RunEventName =
  | "run_started"
  | "dispatch_context_assembled"
  | "agent_step_finished"
  | "hub_report_failed"
  | "run_finished"
  | "distill_finished"
  | "learning_failed";

export interface RunLog {
  event(name: RunEventName, fields: Record<string, unknown>): void;
  /** Flushes and closes the file. */
  close(): void;
}

/** `.kxm/runs/<run-id>/events.jsonl`. */
function eventsPath(root: string, runId: string): string {
  return join(runDir(root, runId), "events.jsonl");
}

/** Opens the run's event log for appending (synchronous writes: nothing is lost if the process dies). */
export function openRunLog(root: string, runId: string): RunLog {
  const destination = pino.destination({ dest: eventsPath(root, runId), append: true, sync: true });
  const logger: Logger = pino(
    { base: null, messageKey: "msg", timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
  return {
    event(name, fields) {
      const warn =
        name === "hub_report_failed" ||
        name === "learning_failed" ||
        (name === "distill_finished" && fields.status !== "done" && fields.status !== "skipped") ||
        (name === "distill_finished" && Array.isArray(fields.dropped) && fields.dropped.length > 0);
      const level = warn ? "warn" : "info";
      logger[level]({ event: name, ...fields });
    },
    close() {
      destination.flushSync();
      destination.end();
    },
  };
}
