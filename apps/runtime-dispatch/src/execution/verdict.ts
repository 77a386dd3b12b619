import type { ResolvedAdapter } from "../definitions/agents.js";
import type { WorkflowStep } from "../definitions/workflow.js";
import type { StepResult } from "../runs/results.js";
import type { AgentExit } from "./adapter.js";
import type { AgentReport } from "./report.js";

/** How a step attempt ended: its status, the outcome it completed with, and why the run cannot go on past it. */
export interface Verdict {
  status: StepResult["status"];
  outcome: string | null;
  reason: string | null;
}

/**
 * The step's verdict from how the agent ended and what it reported. A step completes with the outcome it named
 * (its first allowed outcome when it named none); any outcome but the first completes it with a reason, which ends
 * the run there.
 */
export function verdict(
  step: WorkflowStep,
  exit: AgentExit,
  adapter: ResolvedAdapter,
  reported: AgentReport,
): Verdict {
  if (exit.status === "not_started" || (exit.status === "exited" && exit.reason !== undefined)) {
    return { status: "failed", outcome: null, reason: exit.reason ?? null };
  }
  if (exit.status === "timed_out") {
    return { status: "timed_out", outcome: null, reason: `timed out after ${adapter.timeoutMs / 1000} s` };
  }
  if (exit.status === "cancelled")
    return { status: "cancelled", outcome: null, reason: "the run was cancelled" };
  if (exit.exitCode !== 0) {
    const how = exit.exitCode === null ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
    return { status: "failed", outcome: null, reason: `the agent ended with ${how}` };
  }
  const named = reported.outcome;
  const outcome = named ?? step.allowedOutcomes[0]!;
  if (!step.allowedOutcomes.includes(outcome)) {
    return {
      status: "failed",
      outcome: null,
      reason: `outcome ${outcome} is not allowed (allowed: ${step.allowedOutcomes.join(", ")})`,
    };
  }
  const proceed = outcome === step.allowedOutcomes[0];
  return { status: "completed", outcome, reason: proceed ? null : `the step ended with outcome ${outcome}` };
}
