import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import { writeFileWhole } from "@kxm/memory-git";
import { adaptersFor, loadAgentsConfig, type ResolvedAdapter } from "../definitions/agents.js";
import type { PredecessorOutput } from "../dispatch/prompt.js";
import { executorFileRel, type StepResult } from "../runs/results.js";
import { createRun, jsonText, type Run } from "../runs/runs.js";
import { openRunLog } from "./events.js";
import { type HubCall, hubCalls, reportStep } from "./hub-calls.js";
import type { ExecutedRun, ExecuteRunOptions } from "./options.js";
import { finishRun, type RunEnd } from "./outcome.js";
import { runStep, type StepHooks } from "./step.js";

/**
 * Runs a workflow: creates the run (pinning the memory revision), then dispatches its steps in order. Each step's
 * prompt is prepared from committed, pinned memory (its manifest written), saved as
 * `<step>.<attempt>.prompt.md`, and handed to the step agent's adapter; its output is saved and read for an
 * `Outcome:` line and `Evidence:` lines. The run goes on while each step completes with its first allowed outcome
 * and ends at the first step that fails, times out, or completes with another outcome. Every step result and the
 * run's outcome are written whole under `.kxm/runs/<run-id>/`; a hub reporter, when given, is told of each, and
 * its failures are logged, never fatal. An agent id without an adapter is refused before anything is written.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<ExecutedRun> {
  const { root, workflow } = options;
  const now = options.now ?? (() => new Date());
  const adapters = adaptersFor(
    await loadAgentsConfig(root),
    workflow.steps.map((step) => step.agent),
  );
  const run = await createRun(root, {
    workflow,
    prompt: options.prompt,
    now: now(),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(options.project === undefined ? {} : { project: options.project }),
  });
  await writeFileWhole(join(root, executorFileRel(run.runId)), jsonText({ pid: process.pid }));
  const log = openRunLog(root, run.runId);
  const progress = options.onProgress ?? (() => undefined);
  const report = hubCalls(log, run, progress);
  try {
    log.event("run_started", {
      runId: run.runId,
      workflow: run.workflow.name,
      steps: run.workflow.steps.length,
      memoryRevision: run.memoryRevision ?? null,
    });
    progress({ kind: "run_started", run });
    const reporter = options.reporter;
    if (reporter) await report("startRun", () => reporter.runStarted(run));

    const { results, end, failure } = await runSteps(options, run, adapters, report, { log, progress, now });
    const outcome = await finishRun(root, run, end, failure, { log, progress, now, report, reporter });
    if (failure !== undefined) throw failure;
    return { run, outcome, steps: results };
  } finally {
    log.close();
  }
}

/**
 * Dispatches the run's steps in order until one does not complete with its first allowed outcome, the run is
 * aborted, or the run cannot go on (an error, returned as `failure` after the end it led to).
 */
async function runSteps(
  options: ExecuteRunOptions,
  run: Run,
  adapters: Map<string, ResolvedAdapter>,
  report: HubCall,
  hooks: Omit<StepHooks, "reportStep">,
): Promise<{ results: StepResult[]; end: RunEnd; failure: unknown }> {
  const results: StepResult[] = [];
  const predecessors: PredecessorOutput[] = [];
  let end: RunEnd = { status: "succeeded", failingStep: null, reason: null };
  let current: string | null = null;
  let failure: unknown;
  try {
    for (const step of run.workflow.steps) {
      current = step.id;
      if (options.signal?.aborted) {
        end = { status: "cancelled", failingStep: step.id, reason: "the run was cancelled" };
        break;
      }
      const result = await runStep(options, run, step, adapters.get(step.agent)!, predecessors, {
        ...hooks,
        // Told to the hub before the step's result is written, so the result records how that went.
        reportStep: (finished) => reportStep(report, options.reporter, run, step, finished),
      });
      results.push(result);
      hooks.progress({ kind: "step_finished", run, result });
      if (result.status !== "completed" || result.reason !== null) {
        end = {
          status: result.status === "cancelled" ? "cancelled" : "failed",
          failingStep: step.id,
          reason: `step ${step.id}: ${result.reason ?? result.status}`,
        };
        break;
      }
    }
  } catch (error) {
    // The run cannot go on (its files cannot be written, say): it still ends, as failed, and then says why.
    failure = error;
    const why = isKxmError(error) ? error.message : "unexpected error";
    end = { status: "failed", failingStep: current, reason: `the run stopped: ${why}` };
  }
  return { results, end, failure };
}
