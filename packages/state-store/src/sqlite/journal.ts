import { type JournalEntry, KxmError } from "@kxm/contract";
import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import { buildJournalEntry } from "../domain/journal.js";
import { projectId } from "../input.js";
import { journalEntries } from "../schema.js";
import type { AppendJournalInput, JournalFilter } from "../types.js";
import { appendChange } from "./changes.js";
import { type Db, immediate } from "./db.js";
import { getRun } from "./runs.js";
import { refuseForgotten } from "./withhold.js";

/**
 * Appends an entry to a running run's journal. An unknown run is 404 `not_found`; a finished run's journal is
 * closed (`invalid_request`), so purging a terminal run removes a complete journal.
 */
export function appendJournal(db: Db, input: AppendJournalInput, now: Date): JournalEntry {
  const entry = buildJournalEntry({ ...input, project: projectId(input.project) }, now);
  immediate(db, () => {
    const run = getRun(db, entry.project, entry.runId);
    if (run === undefined)
      throw new KxmError("not_found", `no run ${entry.runId} in project ${entry.project}`);
    if (run.status !== "running") {
      throw new KxmError("invalid_request", `run ${run.id} already finished; its journal is closed`);
    }
    refuseForgotten(db, entry.project, entry.summary);
    db.insert(journalEntries)
      .values({
        id: entry.id,
        project: entry.project,
        runId: entry.runId,
        category: entry.category,
        stage: entry.stage ?? null,
        createdAt: entry.createdAt,
        body: entry,
      })
      .run();
    appendChange(db, entry.project, "journal", [entry.id], entry.createdAt);
  });
  return entry;
}

/** The project's journal by creation time, then id; filters combine with AND. */
export function listJournal(db: Db, project: string, filter: JournalFilter = {}): JournalEntry[] {
  if (filter.categories !== undefined && filter.categories.length === 0) return [];
  const conditions: SQL[] = [eq(journalEntries.project, project)];
  if (filter.runId !== undefined) conditions.push(eq(journalEntries.runId, filter.runId));
  if (filter.stage !== undefined) conditions.push(eq(journalEntries.stage, filter.stage));
  if (filter.categories !== undefined)
    conditions.push(inArray(journalEntries.category, [...filter.categories]));
  return db
    .select({ body: journalEntries.body })
    .from(journalEntries)
    .where(and(...conditions))
    .orderBy(asc(journalEntries.createdAt), asc(journalEntries.id))
    .all()
    .map((row) => row.body);
}
