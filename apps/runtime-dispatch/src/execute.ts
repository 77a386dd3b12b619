import { open } from "node:fs/promises";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import { writeFileWhole } from "@kxm/memory-git";
import { redactSecrets } from "@kxm/provenance";
import { OUTPUT_TAIL_BYTES, runAgent } from "./adapter.js";
import { adaptersFor, loadAgentsConfig, type ResolvedAdapter } from "./agents.js";
import { prepareStep } from "./dispatch.js";
import { openRunLog, type RunLog } from "./events.js";
import type { ReportResult, RunReporter } from "./hub-report.js";
import type { PredecessorOutput } from "./prompt.js";
import { type AgentReport, outputSnippet, readAgentReport } from "./report.js";
import {
  executorFileRel,
  loadStepResult,
  outcomePath,
  RUN_OUTCOME_SCHEMA,
  type RunFinalStatus,
  type RunOutcome,
  readRunStatus,
  STEP_RESULT_SCHEMA,
  type StepResult,
  stepFile,
  stepFileRel,
} from "./results.js";
import { createRun, jsonText, type Run } from "./runs.js";
import type { Workflow, WorkflowStep } from "./workflow.js";

/**
 * Variables an agent never inherits: the operator's hub credentials, the admin token and a named operator's token
 * included (an agent holding one could promote as that operator). Give an agent its own key instead.
 */
export const WITHHELD_ENV = ["KXM_AUTH_TOKEN", "KXM_OPERATOR_TOKEN", "KXM_AGENT_KEY"] as const;

/** Something a caller may show while a run goes on (the CLI prints one line each). */
export type RunProgress =
  | { kind: "run_started"; run: Run }
  | {
      kind: "step_started";
      run: Run;
      step: WorkflowStep;
      attempt: number;
      promptTokens: number;
      gaps: string[];
    }
  | { kind: "step_finished"; run: Run; result: StepResult }
  | { kind: "hub_report_failed"; call: string; code: string }
  | { kind: "run_finished"; run: Run; outcome: RunOutcome };

export interface ExecuteRunOptions {
  root: string;
  workflow: Workflow;
  prompt: string;
  /** The clock; a function so that each step's times are real. */
  now?: () => Date;
  runId?: string;
  project?: string;
  /** The environment agents start from (less {@link WITHHELD_ENV}); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Reports to a hub; without one, results say `not_configured`. */
  reporter?: RunReporter;
  /** Aborting stops the running agent and ends the run as cancelled. */
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress) => void;
  gitTimeoutMs?: number;
  gitBinary?: string;
}

export interface ExecutedRun {
  run: Run;
  outcome: RunOutcome;
  steps: StepResult[];
}

function hubField(result: ReportResult | undefined): string {
  if (result === undefined) return "not_configured";
  return result.status === "reported" ? "reported" : `failed:${result.code}`;
}

function agentEnv(
  base: NodeJS.ProcessEnv,
  run: Run,
  step: WorkflowStep,
  attempt: number,
  promptFile: string,
) {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of WITHHELD_ENV) delete env[name];
  Object.assign(env, {
    KXM_RUN_ID: run.runId,
    KXM_STEP_ID: step.id,
    KXM_ATTEMPT: String(attempt),
    KXM_PROMPT_FILE: promptFile,
    KXM_ALLOWED_OUTCOMES: step.allowedOutcomes.join(","),
  });
  return env;
}

/** The step's verdict from how the agent ended and what it reported. */
function verdict(
  step: WorkflowStep,
  exit: Awaited<ReturnType<typeof runAgent>>,
  adapter: ResolvedAdapter,
  reported: AgentReport,
): { status: StepResult["status"]; outcome: string | null; reason: string | null } {
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
  const report = async (call: string, send: () => Promise<ReportResult>): Promise<ReportResult> => {
    const result = await send();
    if (result.status === "failed") {
      log.event("hub_report_failed", { runId: run.runId, call, code: result.code });
      progress({ kind: "hub_report_failed", call, code: result.code });
    }
    return result;
  };
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

    const results: StepResult[] = [];
    const predecessors: PredecessorOutput[] = [];
    let final: { status: RunFinalStatus; failingStep: string | null; reason: string | null } = {
      status: "succeeded",
      failingStep: null,
      reason: null,
    };
    let current: string | null = null;
    let failure: unknown;
    try {
      for (const step of run.workflow.steps) {
        current = step.id;
        if (options.signal?.aborted) {
          final = { status: "cancelled", failingStep: step.id, reason: "the run was cancelled" };
          break;
        }
        // Told to the hub before the step's result is written, so the result records how that went.
        const reportStep = async (result: StepResult): Promise<string> => {
          if (!reporter) return hubField(undefined);
          const sent = await report("appendJournal", () =>
            reporter.stepFinished(run, {
              stepId: step.id,
              agent: step.agent,
              status: result.status,
              outcome: result.outcome,
              reason: result.reason,
              durationMs: result.durationMs,
              evidenceRefs: result.evidence.map((line) => line.ref),
            }),
          );
          return hubField(sent);
        };
        const result = await runStep(options, run, step, adapters.get(step.agent)!, predecessors, {
          log,
          progress,
          now,
          reportStep,
        });
        results.push(result);
        progress({ kind: "step_finished", run, result });
        if (result.status !== "completed" || result.reason !== null) {
          final = {
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
      final = { status: "failed", failingStep: current, reason: `the run stopped: ${why}` };
    }

    let hub: ReportResult | undefined;
    if (reporter) {
      hub = await report("finishRun", () =>
        reporter.runFinished(run, {
          status: final.status,
          ...(final.failingStep === null ? {} : { failingStep: final.failingStep }),
        }),
      );
    }
    const outcome: RunOutcome = {
      schema: RUN_OUTCOME_SCHEMA,
      runId: run.runId,
      status: final.status,
      failingStep: final.failingStep,
      reason: final.reason,
      finishedAt: now().toISOString(),
      hub: hubField(hub),
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
      hub: outcome.hub,
    });
    progress({ kind: "run_finished", run, outcome });
    if (failure !== undefined) throw failure;
    return { run, outcome, steps: results };
  } finally {
    log.close();
  }
}

async function runStep(
  options: ExecuteRunOptions,
  run: Run,
  step: WorkflowStep,
  adapter: ResolvedAdapter,
  predecessors: PredecessorOutput[],
  hooks: {
    log: RunLog;
    progress: (progress: RunProgress) => void;
    now: () => Date;
    reportStep: (result: StepResult) => Promise<string>;
  },
): Promise<StepResult> {
  const { log, progress, now } = hooks;
  const { root } = options;
  const attempt = 1;
  const prepared = await prepareStep({
    root,
    run,
    stepId: step.id,
    attempt,
    predecessors,
    ...(options.gitTimeoutMs === undefined ? {} : { gitTimeoutMs: options.gitTimeoutMs }),
    ...(options.gitBinary === undefined ? {} : { gitBinary: options.gitBinary }),
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
  const promptPath = stepFile(root, run.runId, step.id, attempt, "prompt.md");
  await writeFileWhole(promptPath, rendered.prompt);
  const files = {
    prompt: stepFileRel(run.runId, step.id, attempt, "prompt.md"),
    manifest: stepFileRel(run.runId, step.id, attempt, "manifest.json"),
    output: stepFileRel(run.runId, step.id, attempt, "output.txt"),
    errors: stepFileRel(run.runId, step.id, attempt, "errors.txt"),
  };
  const resultPath = stepFile(root, run.runId, step.id, attempt, "result.json");
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
    files,
    hub: "not_configured",
  };
  await writeFileWhole(resultPath, jsonText(running));
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
    promptFile: promptPath,
    cwd: root,
    // biome-ignore lint/style/noProcessEnv: passed through to the agent (less WITHHELD_ENV), not read.
    env: agentEnv(options.env ?? process.env, run, step, attempt, promptPath),
    outputFile: stepFile(root, run.runId, step.id, attempt, "output.txt"),
    errorFile: stepFile(root, run.runId, step.id, attempt, "errors.txt"),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const reported: AgentReport =
    exit.status === "exited" ? readAgentReport(exit.outputTail) : { evidence: [] };
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
  result.hub = await hooks.reportStep(result);
  await writeFileWhole(resultPath, jsonText(result));
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
  predecessors.push(predecessorOutput(result, exit.status === "exited" ? exit.outputTail : ""));
  return result;
}

/** What a finished step hands to later steps: its output file, its evidence, and the end of its output. */
export function predecessorOutput(result: StepResult, output: string): PredecessorOutput {
  const snippet = outputSnippet(output);
  return {
    stepId: result.stepId,
    artifacts: [result.files.output, ...result.evidence.map((line) => `${line.key}: ${line.ref}`)],
    ...(snippet === undefined ? {} : { snippet }),
  };
}

/**
 * The predecessor outputs `stepId` gets in `run`, rebuilt from the files of the steps before it that completed
 * (what `kxm run prompt --run` previews with).
 */
export async function predecessorsFromRun(
  root: string,
  run: Run,
  stepId: string,
): Promise<PredecessorOutput[]> {
  const status = await readRunStatus(root, run.runId);
  const out: PredecessorOutput[] = [];
  for (const step of status.steps) {
    if (step.stepId === stepId) break;
    if (step.status !== "completed" || step.attempt === null) continue;
    const result = await loadStepResult(root, run.runId, step.stepId, step.attempt);
    if (result === undefined) continue;
    const output = await readTail(join(root, ...result.files.output.split("/")), OUTPUT_TAIL_BYTES);
    out.push(predecessorOutput(result, output));
  }
  return out;
}

/** The last `bytes` bytes of a file as UTF-8; empty when it cannot be read. */
async function readTail(path: string, bytes: number): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    await handle?.close();
  }
}
