import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, isKxmError, KxmError } from "@kxm/contract";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { readJsonFile } from "../definitions/yaml-file.js";
import { type DispatchManifest, MANIFEST_SCHEMA } from "./manifest.js";
import { loadRun, type Run, runDir } from "./runs.js";

// What a run left on disk besides run.json: one result per step attempt and the run's outcome, each written
// whole, and what `kxm run status` and `kxm run manifest` read back.

export const STEP_RESULT_SCHEMA = "kxm.step-result.v1";
export const RUN_OUTCOME_SCHEMA = "kxm.run-outcome.v1";

// `blocked`: the attempt failed with the same failure as the step's previous failed attempt, which stopped the run.
const STEP_STATUSES = ["running", "completed", "failed", "timed_out", "cancelled", "blocked"] as const;
type StepStatus = (typeof STEP_STATUSES)[number];
/** How reporting to a hub went: not configured, done, or failed with a code. */
const HubReportSchema = z.union([
  z.literal("not_configured"),
  z.literal("reported"),
  z.string().regex(/^failed:[a-z_]+$/),
]);

const StepResultSchema = z.strictObject({
  schema: z.literal(STEP_RESULT_SCHEMA),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().min(1),
  agent: z.string(),
  /** Where the adapter came from: `profile:claude`, `command`, `default:profile:codex`. */
  adapter: z.string(),
  status: z.enum(STEP_STATUSES),
  outcome: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Why the step failed, timed out or stopped the run; null when it completed with the proceeding outcome. */
  reason: z.string().nullable(),
  evidence: z.array(z.strictObject({ key: z.string(), ref: z.string() })),
  missingEvidence: z.array(z.string()),
  startedAt: z.iso.datetime({ offset: true }),
  finishedAt: z.iso.datetime({ offset: true }).nullable(),
  durationMs: z.number().int().min(0).nullable(),
  /** The process running the run, while the step runs (to tell a running step from an interrupted one). */
  pid: z.number().int().nullable(),
  /** Project-relative paths of the step's files. */
  files: z.strictObject({ prompt: z.string(), manifest: z.string(), output: z.string(), errors: z.string() }),
  hub: HubReportSchema,
});
export type StepResult = z.infer<typeof StepResultSchema>;

const RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const;
export type RunFinalStatus = (typeof RUN_STATUSES)[number];

const RunOutcomeSchema = z.strictObject({
  schema: z.literal(RUN_OUTCOME_SCHEMA),
  runId: z.string(),
  status: z.enum(RUN_STATUSES),
  failingStep: z.string().nullable(),
  reason: z.string().nullable(),
  finishedAt: z.iso.datetime({ offset: true }),
  hub: HubReportSchema,
  // Added with the learning loop; outcomes written before it have neither and read as null.
  /** The step that was blocked (the same failure twice), which stopped the run. */
  blockedStep: z.string().nullable().optional(),
  /** Why the breaker stopped the run: `consecutive_failures:<n>`; null when it did not. */
  breakerCause: z.string().nullable().optional(),
});
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

/** `.kxm/runs/<run-id>/<step-id>.<attempt>.<suffix>`. */
export function stepFile(
  root: string,
  runId: string,
  stepId: string,
  attempt: number,
  suffix: string,
): string {
  return join(runDir(root, runId), `${stepId}.${attempt}.${suffix}`);
}

/** The project-relative form of {@link stepFile}. */
export function stepFileRel(runId: string, stepId: string, attempt: number, suffix: string): string {
  return `${KXM_PATHS.runs}/${runId}/${stepId}.${attempt}.${suffix}`;
}

export function outcomePath(root: string, runId: string): string {
  return join(runDir(root, runId), "outcome.json");
}

/** `executor.json`: the process executing a run, so that a run killed between two steps reads as interrupted. */
const ExecutorSchema = z.strictObject({ pid: z.number().int() });

/** The project-relative path of a run's executor.json. */
export function executorFileRel(runId: string): string {
  return `${KXM_PATHS.runs}/${runId}/executor.json`;
}

/**
 * The latest attempt of each step that left a `<step-id>.<attempt>.<suffix>` file in the run's folder, keyed by step
 * id (a step id may hold dots: the attempt is the last number before the suffix).
 */
async function latestAttempts(root: string, runId: string, suffix: string): Promise<Map<string, number>> {
  const names = await readdir(runDir(root, runId)).catch(() => [] as string[]);
  const ending = `.${suffix}`;
  const attempts = new Map<string, number>();
  for (const name of names) {
    if (!name.endsWith(ending)) continue;
    const match = /^(.+)\.(\d+)$/.exec(name.slice(0, -ending.length));
    if (!match) continue;
    const attempt = Number(match[2]);
    if (attempt > (attempts.get(match[1]!) ?? 0)) attempts.set(match[1]!, attempt);
  }
  return attempts;
}

/** The latest attempt's result of each step that has one, keyed by step id. */
async function latestResults(root: string, run: Run): Promise<Map<string, StepResult>> {
  const attempts = await latestAttempts(root, run.runId, "result.json");
  const out = new Map<string, StepResult>();
  for (const step of run.workflow.steps) {
    const attempt = attempts.get(step.id);
    if (attempt === undefined) continue;
    const result = await loadStepResult(root, run.runId, step.id, attempt);
    if (result !== undefined) out.set(step.id, result);
  }
  return out;
}

/** One attempt's result, or `undefined` when it has none. */
export function loadStepResult(
  root: string,
  runId: string,
  stepId: string,
  attempt: number,
): Promise<StepResult | undefined> {
  return readJsonFile(root, stepFileRel(runId, stepId, attempt, "result.json"), StepResultSchema);
}

/** A run's status: finished (its outcome), running, interrupted (its process is gone) or pending. */
type RunStatusName = RunFinalStatus | "running" | "interrupted" | "pending";
type StepStatusName = StepStatus | "interrupted" | "pending";

export interface RunStatus {
  runId: string;
  workflow: string;
  project: string;
  createdAt: string;
  memoryRevision: string | null;
  status: RunStatusName;
  failingStep: string | null;
  reason: string | null;
  finishedAt: string | null;
  hub: string | null;
  /** The step blocked by the same failure twice, when that stopped the run. */
  blockedStep: string | null;
  /** `consecutive_failures:<n>` when the breaker stopped the run. */
  breakerCause: string | null;
  steps: Array<{
    stepId: string;
    agent: string;
    status: StepStatusName;
    attempt: number | null;
    outcome: string | null;
    reason: string | null;
    durationMs: number | null;
    missingEvidence: string[];
    hub: string | null;
  }>;
}

function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/** The status of one run, from its files: `not_found` when there is no such run. */
export async function readRunStatus(root: string, runId: string): Promise<RunStatus> {
  const run = await loadRun(root, runId);
  const results = await latestResults(root, run);
  const outcome = await readJsonFile(root, `${KXM_PATHS.runs}/${run.runId}/outcome.json`, RunOutcomeSchema);
  let interrupted = false;
  const steps = run.workflow.steps.map((step) => {
    const result = results.get(step.id);
    let status: StepStatusName = result?.status ?? "pending";
    if (status === "running" && !alive(result?.pid ?? null)) {
      status = "interrupted";
      interrupted = true;
    }
    return {
      stepId: step.id,
      agent: step.agent,
      status,
      attempt: result?.attempt ?? null,
      outcome: result?.outcome ?? null,
      reason: result?.reason ?? null,
      durationMs: result?.durationMs ?? null,
      missingEvidence: result?.missingEvidence ?? [],
      hub: result?.hub ?? null,
    };
  });
  let status: RunStatusName;
  if (outcome !== undefined) status = outcome.status;
  else if (interrupted) status = "interrupted";
  else if (results.size === 0) status = "pending";
  else {
    // No step is running: between two steps, the run is as alive as the process executing it. A run written
    // before executor.json existed has none and reads as running, as it always did.
    const executor = await readJsonFile(root, executorFileRel(run.runId), ExecutorSchema);
    status = executor === undefined || alive(executor.pid) ? "running" : "interrupted";
  }
  return {
    runId: run.runId,
    workflow: run.workflow.name,
    project: run.project,
    createdAt: run.createdAt,
    memoryRevision: run.memoryRevision ?? null,
    status,
    failingStep: outcome?.failingStep ?? null,
    reason: outcome?.reason ?? null,
    finishedAt: outcome?.finishedAt ?? null,
    hub: outcome?.hub ?? null,
    blockedStep: outcome?.blockedStep ?? null,
    breakerCause: outcome?.breakerCause ?? null,
    steps,
  };
}

/** A folder under `.kxm/runs` that holds a run.json but cannot be read as a run, and why (one line, naming the file). */
export interface BrokenRun {
  runId: string;
  code: string;
  problem: string;
}

/**
 * Every run under `.kxm/runs`, newest first (ties by run id), and the runs that cannot be read, by folder name. A
 * folder without a run.json (or whose name is no run id), and a file, are not runs and are skipped; a run whose
 * run.json, outcome.json or step result is not JSON or does not match its schema is broken, and named.
 */
export async function scanRuns(root: string): Promise<{ runs: RunStatus[]; broken: BrokenRun[] }> {
  const dir = join(root, KXM_PATHS.runs);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const runs: RunStatus[] = [];
  const broken: BrokenRun[] = [];
  for (const entry of entries.sort((a, b) => compareCodeUnits(a.name, b.name))) {
    if (!entry.isDirectory()) continue;
    try {
      runs.push(await readRunStatus(root, entry.name));
    } catch (error) {
      if (!isKxmError(error)) throw error;
      // No run.json: an empty folder left by a start that died before writing it, or not a run at all.
      if (error.code === "not_found" && !existsSync(join(dir, entry.name, "run.json"))) continue;
      if (error.code === "invalid_request" && error.message.startsWith("runId:")) continue;
      broken.push({ runId: entry.name, code: error.code, problem: error.message });
    }
  }
  runs.sort((a, b) => compareCodeUnits(b.createdAt, a.createdAt) || compareCodeUnits(a.runId, b.runId));
  return { runs, broken };
}

/** Every readable run under `.kxm/runs`, newest first (ties by run id): {@link scanRuns} less the broken ones. */
export async function listRunStatuses(root: string): Promise<RunStatus[]> {
  return (await scanRuns(root)).runs;
}

const ManifestFileSchema = z.looseObject({ schema: z.literal(MANIFEST_SCHEMA) });

/**
 * The manifests of a run: the latest attempt of every step that was dispatched, in workflow order, or of one step
 * (`not_found` when that step has none). An unknown step is `invalid_request`.
 */
export async function readManifests(
  root: string,
  runId: string,
  stepId?: string,
): Promise<DispatchManifest[]> {
  const run = await loadRun(root, runId);
  if (stepId !== undefined && !run.workflow.steps.some((step) => step.id === stepId)) {
    throw new KxmError("invalid_request", `step: run ${run.runId} has no step ${stepId}`);
  }
  const attempts = await latestAttempts(root, run.runId, "manifest.json");
  const out: DispatchManifest[] = [];
  for (const step of run.workflow.steps) {
    if (stepId !== undefined && step.id !== stepId) continue;
    const latest = attempts.get(step.id);
    if (latest === undefined) continue;
    const rel = stepFileRel(run.runId, step.id, latest, "manifest.json");
    const manifest = await readJsonFile(root, rel, ManifestFileSchema);
    if (manifest !== undefined) out.push(manifest as unknown as DispatchManifest);
  }
  if (stepId !== undefined && out.length === 0) {
    throw new KxmError("not_found", `step ${stepId} of run ${run.runId} has not been dispatched`);
  }
  return out;
}
