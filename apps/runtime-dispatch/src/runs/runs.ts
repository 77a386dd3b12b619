import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { KxmError, ProjectIdSchema, parseOrThrow } from "@kxm/contract";
import { computeMemoryRevision, defaultProjectId, writeFileWhole } from "@kxm/memory-git";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { type Workflow, WorkflowStepSchema } from "../definitions/workflow.js";
import { readJsonFile } from "../definitions/yaml-file.js";

const RUN_SCHEMA = "kxm.run.v1";
const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const RunFileSchema = z.strictObject({
  schema: z.literal(RUN_SCHEMA),
  runId: z.string().max(128).regex(RUN_ID_PATTERN),
  project: ProjectIdSchema,
  workflow: z.strictObject({ name: z.string().min(1), steps: z.array(WorkflowStepSchema).min(1) }),
  prompt: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  /** The memory revision pinned at creation. A run written without one gets `dispatch_context_not_loaded`. */
  memoryRevision: z
    .string()
    .regex(/^ctxrev_[0-9a-f]{64}$/)
    .optional(),
});
/** A run as stored in `.kxm/runs/<run-id>/run.json`; it carries a copy of its workflow. */
export type Run = z.infer<typeof RunFileSchema>;

export interface CreateRunOptions {
  workflow: Workflow;
  prompt: string;
  now: Date;
  /** Defaults to `run_` and 12 random hex digits. */
  runId?: string;
  /** The project named in prompts; defaults to the root folder's name, made a valid project id. */
  project?: string;
}

/** `.kxm/runs/<runId>`. */
export function runDir(root: string, runId: string): string {
  return join(root, KXM_PATHS.runs, runId);
}

function checkRunId(runId: string): string {
  if (typeof runId !== "string" || runId.length > 128 || !RUN_ID_PATTERN.test(runId)) {
    throw new KxmError("invalid_request", "runId: must be letters, digits, '.', '_' or '-' (at most 128)");
  }
  return runId;
}

/** Serialises like every KXM JSON file: two-space indent and a final newline, keys in schema order. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Creates a run: pins the current memory revision and writes `.kxm/runs/<run-id>/run.json` whole or not at all.
 * An existing run id is `invalid_request`.
 */
export async function createRun(root: string, options: CreateRunOptions): Promise<Run> {
  const run = await buildRun(root, options);
  const dir = runDir(root, run.runId);
  const file = join(dir, "run.json");
  // Creating the run's own folder is the claim on the id: two runs started with one id cannot both succeed.
  await mkdir(dirname(dir), { recursive: true });
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EEXIST") {
      throw new KxmError("invalid_request", `run ${run.runId} already exists`);
    }
    throw error;
  }
  await writeFileWhole(file, jsonText(run));
  return run;
}

/**
 * The run `createRun` would write, pinned to the current memory revision, without writing anything: what
 * `kxm run prompt` previews with.
 */
export async function buildRun(root: string, options: CreateRunOptions): Promise<Run> {
  const runId = checkRunId(options.runId ?? `run_${randomBytes(6).toString("hex")}`);
  const project =
    options.project === undefined
      ? defaultProjectId(root)
      : parseOrThrow(ProjectIdSchema, options.project, "invalid_request", "project");
  return parseOrThrow(
    RunFileSchema,
    {
      schema: RUN_SCHEMA,
      runId,
      project,
      workflow: { name: options.workflow.name, steps: options.workflow.steps },
      prompt: options.prompt,
      createdAt: options.now.toISOString(),
      memoryRevision: await computeMemoryRevision(root),
    },
    "invalid_request",
    "run",
  );
}

/** Loads `.kxm/runs/<run-id>/run.json`: `not_found` when missing, `invalid_request` when malformed. */
export async function loadRun(root: string, runId: string): Promise<Run> {
  const rel = `${KXM_PATHS.runs}/${checkRunId(runId)}/run.json`;
  const run = await readJsonFile(root, rel, RunFileSchema);
  if (run === undefined) throw new KxmError("not_found", `no run ${runId}: ${rel} does not exist`);
  return run;
}
