import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import { writeFileWhole } from "@kxm/memory-git";
import { adaptersFor, loadAgentsConfig, type ResolvedAdapter } from "../definitions/agents.js";
import { stepAttempts } from "../definitions/workflow.js";
import type { PredecessorOutput } from "../dispatch/prompt.js";
import { learnFromRun } from "../learning/after-run.js";
import { readEpisodes } from "../learning/episodes.js";
import { type LearningSettings, loadLearningSettings } from "../learning/settings.js";
import { executorFileRel, type StepResult } from "../runs/results.js";
import { createRun, jsonText, type Run } from "../runs/runs.js";
import { attemptFailed, earlierFailureKey } from "./attempt-episode.js";
import { openRunLog } from "./events.js";
import { type HubCall, hubCalls, reportStep } from "./hub-calls.js";
import type { ExecutedRun, ExecuteRunOptions } from "./options.js";
import { finishRun, type RunEnd } from "./outcome.js";
import { runStep, type StepHooks } from "./step.js";

/**
 * Runs a workflow: creates the run (pinning the memory revision), then dispatches its steps in order. Each step's
 * prompt is prepared from committed, pinned memory (its manifest written), saved as
 * `<step>.<attempt>.prompt.md`, and handed to the step agent's adapter; its output is saved and read for an
 * `Outcome:` line, `Evidence:` lines and `Tried:` / `Failure:` lines. A failed or timed-out attempt is retried
 * while the step has attempts left. The run goes on while each step completes with its first allowed outcome and
 * ends at a step that completes with another outcome, runs out of attempts, fails the same way twice (`blocked`),
 * or trips the breaker (`breaker.consecutiveFailures` failed attempts in a row). Every attempt's result and the
 * run's outcome are written whole under `.kxm/runs/<run-id>/`, and every attempt appends an episode; a hub
 * reporter, when given, is told of each, and its failures are logged, never fatal. Once the outcome is written,
 * the learners run ({@link learnFromRun}). An agent id without an adapter, or a bad `.kxm/learning.yaml`, is
 * refused before anything is written.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<ExecutedRun> {
  const { root, workflow } = options;
  const now = options.now ?? (() => new Date());
  const agents = await loadAgentsConfig(root);
  const adapters = adaptersFor(
    agents,
    workflow.steps.map((step) => step.agent),
  );
  const settings = await loadLearningSettings(root);
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

    const { attempts, end, failure } = await runSteps(options, run, adapters, settings, report, {
      log,
      progress,
      now,
    });
    const outcome = await finishRun(root, run, end, failure, { log, progress, now, report, reporter });
    const learning = await learnFromRun({
      root,
      run,
      outcome,
      attempts,
      settings,
      agents,
      log,
      now,
      // biome-ignore lint/style/noProcessEnv: handed to the learners' agents (less WITHHELD_ENV), not read.
      env: options.env ?? process.env,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (failure !== undefined) throw failure;
    return { run, outcome, steps: latestPerStep(attempts), attempts, learning };
  } finally {
    log.close();
  }
}

/** The latest attempt of each step, in the order the steps ran. */
function latestPerStep(attempts: readonly StepResult[]): StepResult[] {
  const latest = new Map<string, StepResult>();
  for (const result of attempts) latest.set(result.stepId, result);
  return [...latest.values()];
}

/**
 * Dispatches the run's steps in order, each attempt after a failed or timed-out one while the step has attempts
 * left, until a step does not complete with its first allowed outcome, a step is blocked (the same failure twice),
 * the breaker trips, the run is aborted, or the run cannot go on (an error, returned as `failure` after the end it
 * led to).
 */
async function runSteps(
  options: ExecuteRunOptions,
  run: Run,
  adapters: Map<string, ResolvedAdapter>,
  settings: LearningSettings,
  report: HubCall,
  hooks: Omit<StepHooks, "reportStep">,
): Promise<{ attempts: StepResult[]; end: RunEnd; failure: unknown }> {
  const attempts: StepResult[] = [];
  const predecessors: PredecessorOutput[] = [];
  const ended = (status: RunEnd["status"], failingStep: string | null, reason: string | null): RunEnd => ({
    status,
    failingStep,
    reason,
    blockedStep: null,
    breakerCause: null,
  });
  let end = ended("succeeded", null, null);
  const limit = settings.breaker.consecutiveFailures;
  let failedInARow = 0;
  let current: string | null = null;
  let failure: unknown;
  try {
    steps: for (const step of run.workflow.steps) {
      current = step.id;
      const { episodes } = await readEpisodes(options.root);
      let previousFailureKey = earlierFailureKey(episodes, run, step.id);
      for (let attempt = 1; attempt <= stepAttempts(step); attempt++) {
        if (options.signal?.aborted) {
          end = ended("cancelled", step.id, "the run was cancelled");
          break steps;
        }
        const { result, episode } = await runStep(
          options,
          run,
          step,
          adapters.get(step.agent)!,
          predecessors,
          {
            ...hooks,
            // Told to the hub before the attempt's result is written, so the result records how that went.
            reportStep: (finished, told, manifest) =>
              reportStep(report, options.reporter, run, step, finished, told, manifest),
          },
          { attempt, previousFailureKey, settings },
        );
        attempts.push(result);
        hooks.progress({ kind: "step_finished", run, result });
        if (result.status === "completed" && result.reason === null) {
          failedInARow = 0;
          continue steps;
        }
        if (!attemptFailed(result.status)) {
          // Cancelled, or completed with another allowed outcome: never retried.
          const status = result.status === "cancelled" ? "cancelled" : "failed";
          end = ended(status, step.id, `step ${step.id}: ${result.reason ?? result.status}`);
          break steps;
        }
        failedInARow++;
        if (result.status === "blocked") {
          end = {
            ...ended("failed", step.id, `step ${step.id} blocked: ${result.reason}`),
            blockedStep: step.id,
          };
          break steps;
        }
        if (failedInARow >= limit) {
          end = {
            ...ended(
              "failed",
              step.id,
              `step ${step.id}: ${result.reason ?? result.status}; the breaker stopped the run after ${failedInARow} failed attempts in a row`,
            ),
            breakerCause: `consecutive_failures:${failedInARow}`,
          };
          break steps;
        }
        if (attempt === stepAttempts(step)) {
          end = ended("failed", step.id, `step ${step.id}: ${result.reason ?? result.status}`);
          break steps;
        }
        previousFailureKey = episode.failureKey;
      }
    }
  } catch (error) {
    // The run cannot go on (its files cannot be written, say): it still ends, as failed, and then says why.
    failure = error;
    const why = isKxmError(error) ? error.message : "unexpected error";
    end = ended("failed", current, `the run stopped: ${why}`);
  }
  return { attempts, end, failure };
}
