import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { writeFileWhole } from "@kxm/memory-git";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { jsonText } from "../runs/runs.js";
import type { Learner } from "./context.js";
import { type Efficacy, memoryEfficacy, skillEfficacy } from "./efficacy.js";
import { type Episode, readEpisodes } from "./episodes.js";

// The outcome ledger, `.kxm/runs/ledger.json`: one row per step attempt of every run, the skill and memory-item
// efficacy computed from them, and one summary per run. Its source of truth is each run's own files (result,
// manifest and outcome files, and episodes.jsonl for the failure text), never the process's memory: after each
// run that run's rows are replaced, and a missing or corrupt ledger is rebuilt from every run folder.
// Fields written by newer runners (retries, `blocked`, `breakerCause`, `blockedStep`) are read when present and
// read as none when missing, so older run folders still roll up.

const LEDGER_SCHEMA = "kxm.ledger.v1";

/** One step attempt. */
interface LedgerRow {
  runId: string;
  workflow: string;
  stepId: string;
  attempt: number;
  agent: string;
  /** Completed with the step's first allowed outcome and no missing required evidence. */
  verified: boolean;
  /** Completed (with any allowed outcome). */
  progress: boolean;
  /** attempt - 1. */
  retries: number;
  durationMs: number | null;
  /** "" for a verified attempt. */
  failure: string;
  /** The run's breaker cause on the attempt that tripped it (the run's last attempt); "" otherwise. */
  breakerCause: string;
  /** The attempt's status is `blocked`, or the run's outcome names its step as blocked (on its last attempt). */
  blocked: boolean;
  /** Skill ids in the manifest's Active Skills section, sorted. */
  skills: string[];
  /** Other delivered item ids (Recent Episodes excluded), sorted. */
  memory: string[];
  finishedAt: string;
}

/** One run's summary. */
interface LedgerRun {
  runId: string;
  workflow: string;
  /** The outcome's status, or null while the run has none. */
  status: string | null;
  attempts: number;
  verified: number;
  failed: number;
  breakerCause: string;
  blockedStep: string | null;
  finishedAt: string | null;
}

export interface Ledger {
  schema: typeof LEDGER_SCHEMA;
  attempts: LedgerRow[];
  skills: Efficacy[];
  memory: Efficacy[];
  runs: LedgerRun[];
}

/** `.kxm/runs/ledger.json`. */
function ledgerPath(root: string): string {
  return join(root, KXM_PATHS.ledger);
}

// The run's files, read loosely: only the fields the ledger needs, each defaulted when missing.
const ResultFile = z.looseObject({
  stepId: z.string(),
  attempt: z.number().int().min(1),
  agent: z.string().catch(""),
  status: z.string(),
  reason: z.string().nullable().catch(null),
  missingEvidence: z.array(z.string()).catch([]),
  startedAt: z.string().catch(""),
  finishedAt: z.string().nullable().catch(null),
  durationMs: z.number().nullable().catch(null),
});
const ManifestFile = z.looseObject({
  items: z.array(z.looseObject({ id: z.string(), section: z.string() })).catch([]),
});
const OutcomeFile = z.looseObject({
  status: z.string(),
  finishedAt: z.string().catch(""),
  breakerCause: z.string().nullable().optional().catch(null),
  blockedStep: z.string().nullable().optional().catch(null),
});
const RunFile = z.looseObject({ runId: z.string(), workflow: z.looseObject({ name: z.string() }) });

const RowSchema = z.strictObject({
  runId: z.string(),
  workflow: z.string(),
  stepId: z.string(),
  attempt: z.number().int().min(1),
  agent: z.string(),
  verified: z.boolean(),
  progress: z.boolean(),
  retries: z.number().int().min(0),
  durationMs: z.number().nullable(),
  failure: z.string(),
  breakerCause: z.string(),
  blocked: z.boolean(),
  skills: z.array(z.string()),
  memory: z.array(z.string()),
  finishedAt: z.string(),
});
const LedgerFile = z.looseObject({ schema: z.literal(LEDGER_SCHEMA), attempts: z.array(RowSchema) });

async function readJson<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const NOT_MEMORY = new Set(["Active Skills", "Recent Episodes"]);
const sortedUnique = (ids: string[]) => [...new Set(ids)].sort(compareCodeUnits);

const byRow = (a: LedgerRow, b: LedgerRow) =>
  compareCodeUnits(a.finishedAt, b.finishedAt) ||
  compareCodeUnits(a.runId, b.runId) ||
  compareCodeUnits(a.stepId, b.stepId) ||
  a.attempt - b.attempt;

const episodeKey = (runId: string, stepId: string, attempt: number) =>
  `${runId}\u0000${stepId}\u0000${attempt}`;

/**
 * The rows of one run, from its folder: one per finished attempt (a result file with a status other than
 * `running`). A run without a readable run.json has none.
 */
async function runRows(
  root: string,
  runId: string,
  episodes: readonly Episode[] = [],
): Promise<{ rows: LedgerRow[]; run: LedgerRun | undefined }> {
  const dir = join(root, KXM_PATHS.runs, runId);
  const run = await readJson(join(dir, "run.json"), RunFile);
  if (run === undefined) return { rows: [], run: undefined };
  const workflow = run.workflow.name;
  const outcome = await readJson(join(dir, "outcome.json"), OutcomeFile);
  const failures = new Map<string, string>();
  for (const episode of episodes) {
    if (episode.runId === runId)
      failures.set(episodeKey(runId, episode.stepId, episode.attempt), episode.failure);
  }
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) =>
    name.endsWith(".result.json"),
  );
  const rows: LedgerRow[] = [];
  const lastAttempt = new Map<string, number>();
  for (const name of names.sort(compareCodeUnits)) {
    const result = await readJson(join(dir, name), ResultFile);
    if (result === undefined || result.status === "running") continue;
    const manifest = await readJson(
      join(dir, `${result.stepId}.${result.attempt}.manifest.json`),
      ManifestFile,
    );
    const items = manifest?.items ?? [];
    const progress = result.status === "completed";
    const verified = progress && result.reason === null && result.missingEvidence.length === 0;
    const episodeFailure = failures.get(episodeKey(runId, result.stepId, result.attempt));
    const failure = verified
      ? ""
      : (episodeFailure ??
        result.reason ??
        (result.missingEvidence.length > 0 ? `missing evidence: ${result.missingEvidence.join(", ")}` : ""));
    rows.push({
      runId,
      workflow,
      stepId: result.stepId,
      attempt: result.attempt,
      agent: result.agent,
      verified,
      progress,
      retries: result.attempt - 1,
      durationMs: result.durationMs,
      failure,
      breakerCause: "",
      blocked: result.status === "blocked",
      skills: sortedUnique(items.filter((item) => item.section === "Active Skills").map((item) => item.id)),
      memory: sortedUnique(items.filter((item) => !NOT_MEMORY.has(item.section)).map((item) => item.id)),
      finishedAt: result.finishedAt ?? result.startedAt,
    });
    lastAttempt.set(result.stepId, Math.max(lastAttempt.get(result.stepId) ?? 0, result.attempt));
  }
  rows.sort(byRow);
  const breakerCause = outcome?.breakerCause ?? "";
  const blockedStep = outcome?.blockedStep ?? null;
  if (breakerCause !== "" && rows.length > 0) rows[rows.length - 1]!.breakerCause = breakerCause;
  if (blockedStep !== null) {
    const row = rows.find((r) => r.stepId === blockedStep && r.attempt === lastAttempt.get(blockedStep));
    if (row) row.blocked = true;
  }
  return {
    rows,
    run: {
      runId,
      workflow,
      status: outcome?.status ?? null,
      attempts: rows.length,
      verified: rows.filter((row) => row.verified).length,
      failed: rows.filter((row) => !row.progress).length,
      breakerCause,
      blockedStep,
      finishedAt: outcome?.finishedAt ?? null,
    },
  };
}

/** The ledger of `rows` and `runs`: rows sorted, efficacy computed, runs sorted by (finishedAt, runId). */
function buildLedger(rows: readonly LedgerRow[], runs: readonly LedgerRun[]): Ledger {
  const attempts = [...rows].sort(byRow);
  return {
    schema: LEDGER_SCHEMA,
    attempts,
    skills: skillEfficacy(attempts),
    memory: memoryEfficacy(attempts),
    runs: [...runs].sort(
      (a, b) =>
        compareCodeUnits(a.finishedAt ?? "", b.finishedAt ?? "") || compareCodeUnits(a.runId, b.runId),
    ),
  };
}

async function runIds(root: string): Promise<string[]> {
  const entries = await readdir(join(root, KXM_PATHS.runs), { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
}

/** The ledger computed from every run folder under `.kxm/runs` (nothing is written). */
async function rebuildLedger(root: string): Promise<Ledger> {
  const { episodes } = await readEpisodes(root);
  const rows: LedgerRow[] = [];
  const runs: LedgerRun[] = [];
  for (const runId of await runIds(root)) {
    const found = await runRows(root, runId, episodes);
    if (found.run === undefined) continue;
    rows.push(...found.rows);
    runs.push(found.run);
  }
  return buildLedger(rows, runs);
}

/** The stored ledger, or undefined when the file is missing, not JSON or off its schema. */
async function readLedgerFile(root: string): Promise<Ledger | undefined> {
  const file = await readJson(ledgerPath(root), LedgerFile);
  if (file === undefined) return undefined;
  const runs = z.array(z.looseObject({ runId: z.string() })).safeParse(file.runs);
  if (!runs.success) return undefined;
  return file as unknown as Ledger;
}

/**
 * Merges one run into the ledger and writes it whole: that run's rows and summary replace the stored ones. A
 * missing or corrupt ledger is rebuilt from every run folder instead, so nothing is lost.
 */
async function mergeRunIntoLedger(root: string, runId: string): Promise<Ledger> {
  const stored = await readLedgerFile(root);
  let ledger: Ledger;
  if (stored === undefined) ledger = await rebuildLedger(root);
  else {
    const { episodes } = await readEpisodes(root);
    const found = await runRows(root, runId, episodes);
    ledger = buildLedger(
      [...stored.attempts.filter((row) => row.runId !== runId), ...found.rows],
      [...stored.runs.filter((run) => run.runId !== runId), ...(found.run ? [found.run] : [])],
    );
  }
  await writeFileWhole(ledgerPath(root), jsonText(ledger));
  return ledger;
}

/**
 * The ledger `kxm run metrics` shows: the stored file when it reads, else rebuilt from the run folders (and
 * written). Filters keep the rows and runs of one run or workflow and recompute efficacy over what is kept; an
 * unknown run or workflow is `not_found`.
 */
export async function loadLedger(
  root: string,
  filter: { runId?: string; workflow?: string } = {},
): Promise<Ledger> {
  let ledger = await readLedgerFile(root);
  if (ledger === undefined) {
    ledger = await rebuildLedger(root);
    if (ledger.runs.length > 0) await writeFileWhole(ledgerPath(root), jsonText(ledger));
  }
  if (filter.runId === undefined && filter.workflow === undefined) return ledger;
  const keep = (item: { runId: string; workflow: string }) =>
    (filter.runId === undefined || item.runId === filter.runId) &&
    (filter.workflow === undefined || item.workflow === filter.workflow);
  const runs = ledger.runs.filter(keep);
  if (filter.runId !== undefined && !ledger.runs.some((run) => run.runId === filter.runId)) {
    throw new KxmError("not_found", `run: the ledger has no run ${filter.runId}`);
  }
  if (filter.workflow !== undefined && !ledger.runs.some((run) => run.workflow === filter.workflow)) {
    throw new KxmError("not_found", `workflow: the ledger has no run of workflow ${filter.workflow}`);
  }
  return buildLedger(ledger.attempts.filter(keep), runs);
}

/** The learner that merges each finished run into the ledger. */
export const ledgerLearner: Learner = {
  name: "ledger",
  async learn(context) {
    await mergeRunIntoLedger(context.root, context.run.runId);
  },
};
