import { writeFileWhole } from "@kxm/memory-git";
import { redactSecrets } from "@kxm/provenance";
import type { ResolvedAdapter } from "../definitions/agents.js";
import type { WorkflowStep } from "../definitions/workflow.js";
import { prepareStep } from "../dispatch/dispatch.js";
import type { PredecessorOutput } from "../dispatch/prompt.js";
import { appendEpisode, type Episode, normalizeFailure } from "../learning/episodes.js";
import type { LearningSettings } from "../learning/settings.js";
import type { DispatchManifest } from "../runs/manifest.js";
import { STEP_RESULT_SCHEMA, type StepResult } from "../runs/results.js";
import { jsonText, type Run } from "../runs/runs.js";
import { runAgent } from "./adapter.js";
import { agentEnv } from "./agent-env.js";
import { attemptEpisode, attemptFailed, attemptFailure } from "./attempt-episode.js";
import type { RunLog } from "./events.js";
import type { ExecuteRunOptions, RunProgress } from "./options.js";
import { predecessorOutput } from "./predecessors.js";
import { type AgentReport, readAgentReport } from "./report.js";
import { stepFiles } from "./step-files.js";
import { verdict } from "./verdict.js";

/** What the run loop lends each step: its log, its progress callback, its clock, and its hub report. */
export interface StepHooks {
  log: RunLog;
  progress: (progress: RunProgress) => void;
  now: () => Date;
  /**
   * Tells the hub of the finished attempt and what its prompt carried, before its result is written; returns the
   * result's `hub` field.
   */
  reportStep: (result: StepResult, episode: Episode, manifest: DispatchManifest) => Promise<string>;
}

/** Which attempt of its step this is, and the failure key a failure of it would repeat. */
export interface AttemptContext {
  /** 1-based. */
  attempt: number;
  /**
   * The failure key of the step's previous failed attempt (this run's previous attempt, or for attempt 1 the
   * latest earlier run's episode of the same workflow and step); null when there is none.
   */
  previousFailureKey: string | null;
  /** The run's learning settings, read once when it started (the episodes digest's budget). */
  settings: LearningSettings;
}

/** A finished attempt: its result as written, and its episode as appended. */
export interface FinishedAttempt {
  result: StepResult;
  episode: Episode;
}

/**
 * Runs one step attempt: prepares its prompt (the manifest written), saves it, writes a `running` result, runs the
 * agent, judges how it ended (`blocked` when it failed as the previous failed attempt did), writes the final
 * result and appends the attempt's episode to `.kxm/runs/episodes.jsonl`. A completed attempt's output is appended
 * to `predecessors` for the steps after it.
 */
export async function runStep(
  options: ExecuteRunOptions,
  run: Run,
  step: WorkflowStep,
  adapter: ResolvedAdapter,
  predecessors: PredecessorOutput[],
  hooks: StepHooks,
  context: AttemptContext,
): Promise<FinishedAttempt> {
  const { log, progress, now } = hooks;
  const { root } = options;
  const { attempt } = context;
  const prepared = await prepareStep({
    root,
    run,
    stepId: step.id,
    attempt,
    predecessors,
    learning: context.settings,
    ...(options.gitTimeoutMs === undefined ? {} : { gitTimeoutMs: options.gitTimeoutMs }),
    ...(options.gitBinary === undefined ? {} : { gitBinary: options.gitBinary }),
    ...(options.withheld === undefined ? {} : { withheld: options.withheld }),
  });
  const { manifest, rendered } = prepared;
  log.event("dispatch_context_assembled", {
    runId: run.runId,
    stepId: step.id,
    attempt,
    packetId: manifest.packetId,
    agent: step.agent,
    role: manifest.role,
    memoryRevision: manifest.memoryRevision,
    itemIds: manifest.items.map((item) => item.id),
    gaps: manifest.gaps,
    packetTokens: manifest.packetTokens,
    promptTokens: manifest.promptTokens,
  });
  const files = stepFiles(root, run.runId, step.id, attempt);
  await writeFileWhole(files.prompt, rendered.prompt);
  const startedAt = now().toISOString();
  const running: StepResult = {
    schema: STEP_RESULT_SCHEMA,
    runId: run.runId,
    stepId: step.id,
    attempt,
    agent: step.agent,
    adapter: adapter.source,
    status: "running",
    outcome: null,
    exitCode: null,
    signal: null,
    reason: null,
    evidence: [],
    missingEvidence: [],
    startedAt,
    finishedAt: null,
    durationMs: null,
    pid: process.pid,
    files: files.recorded,
    hub: "not_configured",
  };
  await writeFileWhole(files.result, jsonText(running));
  progress({
    kind: "step_started",
    run,
    step,
    attempt,
    promptTokens: rendered.promptTokens,
    gaps: rendered.gaps,
  });

  const exit = await runAgent({
    adapter,
    prompt: rendered.prompt,
    promptFile: files.prompt,
    cwd: root,
    // biome-ignore lint/style/noProcessEnv: passed through to the agent (less WITHHELD_ENV), not read.
    env: agentEnv(options.env ?? process.env, run, step, attempt, files.prompt),
    outputFile: files.output,
    errorFile: files.errors,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  // A timed-out or cancelled agent's output is read only for what it tried and why it failed.
  const read = readAgentReport(exit.outputTail);
  const reported: AgentReport =
    exit.status === "exited"
      ? read
      : {
          evidence: [],
          ...(read.tried === undefined ? {} : { tried: read.tried }),
          ...(read.failure === undefined ? {} : { failure: read.failure }),
        };
  const judged = verdict(step, exit, adapter, reported);
  const evidence = reported.evidence.map(({ key, ref }) => ({ key, ref: redactSecrets(ref) }));
  const given = new Set(evidence.map((line) => line.key));
  const result: StepResult = {
    ...running,
    status: judged.status,
    outcome: judged.outcome,
    exitCode: exit.exitCode,
    signal: exit.signal,
    reason: judged.reason,
    evidence,
    missingEvidence: step.requiredEvidence.filter((key) => !given.has(key)),
    finishedAt: now().toISOString(),
    durationMs: exit.durationMs,
    pid: null,
  };
  const failure = attemptFailure(result, reported);
  const key = normalizeFailure(failure);
  if (attemptFailed(result.status) && key !== "" && key === context.previousFailureKey) {
    result.status = "blocked";
    result.reason = `the same failure twice: ${failure}`;
  }
  const episode = attemptEpisode(run, step, result, reported, failure);
  result.hub = await hooks.reportStep(result, episode, manifest);
  await writeFileWhole(files.result, jsonText(result));
  await appendEpisode(root, episode);
  log.event("agent_step_finished", {
    runId: run.runId,
    stepId: step.id,
    attempt,
    status: result.status,
    outcome: result.outcome,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    missingEvidence: result.missingEvidence,
  });
  if (result.status === "completed") {
    predecessors.push(predecessorOutput(result, exit.status === "exited" ? exit.outputTail : ""));
  }
  return { result, episode };
}
