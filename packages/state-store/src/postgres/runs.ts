// Runs on PostgreSQL: the same lifecycle, episodes and errors as `../sqlite/runs.ts`.
import { type ContextItem, KxmError, type RunRecord } from "@kxm/contract";
import { and, eq } from "drizzle-orm";
import { episodeFor, finishedRun, newRun } from "../domain/runs.js";
import { projectId } from "../input.js";
import type { FinishRunInput, StartRunInput } from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, requireProject, writeTx } from "./db.js";
import { insertItem } from "./items.js";
import { runs } from "./schema.js";
import { refuseForgotten } from "./withhold.js";

/** A run as the contract shapes it: the optional fields only when set. */
export function toRun(row: typeof runs.$inferSelect): RunRecord {
  const run: RunRecord = {
    id: row.id,
    project: row.project,
    workflow: row.workflow,
    status: row.status,
    startedAt: row.startedAt,
  };
  if (row.finishedAt !== null) run.finishedAt = row.finishedAt;
  if (row.failingStep !== null) run.failingStep = row.failingStep;
  if (row.lessons !== null) run.lessons = row.lessons;
  return run;
}

/** The project's run, or undefined. */
export async function getRun(db: Pg, project: string, runId: string): Promise<RunRecord | undefined> {
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.project, project), eq(runs.id, runId)));
  return row === undefined ? undefined : toRun(row);
}

/** Refuses an unknown project (404 `not_found`) and a run id already used in it (`invalid_request`). */
export async function startRun(db: Pg, input: StartRunInput, now: Date): Promise<RunRecord> {
  const run = newRun({ ...input, project: projectId(input.project) }, now);
  await writeTx(db, async (tx) => {
    await requireProject(tx, run.project);
    if ((await getRun(tx, run.project, run.id)) !== undefined) {
      throw new KxmError("invalid_request", `run ${run.id} already exists in project ${run.project}`);
    }
    await tx.insert(runs).values(run);
    await appendChange(tx, run.project, "run", [run.id], run.startedAt);
  });
  return run;
}

/**
 * Finishes a running run and stores its episode, in one transaction. An unknown run is 404 `not_found`; a run
 * that already finished is `invalid_request` (a run has one outcome and one episode).
 */
export function finishRun(
  db: Pg,
  input: FinishRunInput,
  now: Date,
): Promise<{ run: RunRecord; episode: ContextItem }> {
  const project = projectId(input.project);
  return writeTx(db, async (tx) => {
    const run = typeof input.runId === "string" ? await getRun(tx, project, input.runId) : undefined;
    if (run === undefined)
      throw new KxmError("not_found", `no run ${String(input.runId)} in project ${project}`);
    if (run.status !== "running") {
      throw new KxmError("invalid_request", `run ${run.id} already finished (${run.status})`);
    }
    const finished = finishedRun(run, input, now);
    const episode = episodeFor(finished);
    await refuseForgotten(tx, project, episode.summary);
    await tx
      .update(runs)
      .set({
        status: finished.status,
        finishedAt: finished.finishedAt ?? null,
        failingStep: finished.failingStep ?? null,
        lessons: finished.lessons ?? null,
      })
      .where(and(eq(runs.project, project), eq(runs.id, run.id)));
    await insertItem(tx, episode, finished.finishedAt!, run.id);
    await appendChange(tx, project, "run", [run.id], finished.finishedAt!);
    await appendChange(tx, project, "items", [episode.id], finished.finishedAt!);
    return { run: finished, episode };
  });
}
