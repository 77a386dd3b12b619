import { type ContextItem, KxmError, type RunRecord } from "@kxm/contract";
import { and, eq } from "drizzle-orm";
import { episodeFor, finishedRun, newRun } from "../domain/runs.js";
import { projectId } from "../input.js";
import { runs } from "../schema.js";
import type { FinishRunInput, StartRunInput } from "../types.js";
import { appendChange } from "./changes.js";
import { type Db, immediate, requireProject } from "./db.js";
import { insertItem } from "./items.js";
import { refuseForgotten } from "./withhold.js";

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

export function getRun(db: Db, project: string, runId: string): RunRecord | undefined {
  const row = db
    .select()
    .from(runs)
    .where(and(eq(runs.project, project), eq(runs.id, runId)))
    .get();
  return row === undefined ? undefined : toRun(row);
}

/** Refuses an unknown project (404 `not_found`) and a run id already used in it (`invalid_request`). */
export function startRun(db: Db, input: StartRunInput, now: Date): RunRecord {
  const run = newRun({ ...input, project: projectId(input.project) }, now);
  immediate(db, () => {
    requireProject(db, run.project);
    if (getRun(db, run.project, run.id) !== undefined) {
      throw new KxmError("invalid_request", `run ${run.id} already exists in project ${run.project}`);
    }
    db.insert(runs).values(run).run();
    appendChange(db, run.project, "run", [run.id], run.startedAt);
  });
  return run;
}

/**
 * Finishes a running run and stores its episode, in one transaction. An unknown run is 404 `not_found`; a run
 * that already finished is `invalid_request` (a run has one outcome and one episode).
 */
export function finishRun(
  db: Db,
  input: FinishRunInput,
  now: Date,
): { run: RunRecord; episode: ContextItem } {
  const project = projectId(input.project);
  return immediate(db, () => {
    const run = typeof input.runId === "string" ? getRun(db, project, input.runId) : undefined;
    if (run === undefined)
      throw new KxmError("not_found", `no run ${String(input.runId)} in project ${project}`);
    if (run.status !== "running") {
      throw new KxmError("invalid_request", `run ${run.id} already finished (${run.status})`);
    }
    const finished = finishedRun(run, input, now);
    const episode = episodeFor(finished);
    refuseForgotten(db, project, episode.summary);
    db.update(runs)
      .set({
        status: finished.status,
        finishedAt: finished.finishedAt ?? null,
        failingStep: finished.failingStep ?? null,
        lessons: finished.lessons ?? null,
      })
      .where(and(eq(runs.project, project), eq(runs.id, run.id)))
      .run();
    insertItem(db, episode, finished.finishedAt!, run.id);
    appendChange(db, project, "run", [run.id], finished.finishedAt!);
    appendChange(db, project, "items", [episode.id], finished.finishedAt!);
    return { run: finished, episode };
  });
}
