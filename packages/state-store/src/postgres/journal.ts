// Run journals on PostgreSQL: the same entries, order and errors as `../sqlite/journal.ts`.
import { type JournalEntry, KxmError } from "@kxm/contract";
import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import { buildJournalEntry } from "../domain/journal.js";
import { projectId } from "../input.js";
import type { AppendJournalInput, JournalFilter } from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, writeTx } from "./db.js";
import { getRun } from "./runs.js";
import { journalEntries } from "./schema.js";
import { refuseForgotten } from "./withhold.js";

/**
 * Appends an entry to a running run's journal. An unknown run is 404 `not_found`; a finished run's journal is
 * closed (`invalid_request`).
 */
export async function appendJournal(db: Pg, input: AppendJournalInput, now: Date): Promise<JournalEntry> {
  const entry = buildJournalEntry({ ...input, project: projectId(input.project) }, now);
  await writeTx(db, async (tx) => {
    const run = await getRun(tx, entry.project, entry.runId);
    if (run === undefined)
      throw new KxmError("not_found", `no run ${entry.runId} in project ${entry.project}`);
    if (run.status !== "running") {
      throw new KxmError("invalid_request", `run ${run.id} already finished; its journal is closed`);
    }
    await refuseForgotten(tx, entry.project, entry.summary);
    await tx.insert(journalEntries).values({
      id: entry.id,
      project: entry.project,
      runId: entry.runId,
      category: entry.category,
      stage: entry.stage ?? null,
      createdAt: entry.createdAt,
      body: entry,
    });
    await appendChange(tx, entry.project, "journal", [entry.id], entry.createdAt);
  });
  return entry;
}

/**
 * The project's journal by creation time, then id; filters combine with AND. Both columns are `COLLATE "C"`, so
 * the database's order is the code-unit order the SQLite store answers (ids and ISO times are ASCII).
 */
export async function listJournal(
  db: Pg,
  project: string,
  filter: JournalFilter = {},
): Promise<JournalEntry[]> {
  if (filter.categories !== undefined && filter.categories.length === 0) return [];
  const conditions: SQL[] = [eq(journalEntries.project, project)];
  if (filter.runId !== undefined) conditions.push(eq(journalEntries.runId, filter.runId));
  if (filter.stage !== undefined) conditions.push(eq(journalEntries.stage, filter.stage));
  if (filter.categories !== undefined)
    conditions.push(inArray(journalEntries.category, [...filter.categories]));
  const rows = await db
    .select({ body: journalEntries.body })
    .from(journalEntries)
    .where(and(...conditions))
    .orderBy(asc(journalEntries.createdAt), asc(journalEntries.id));
  return rows.map((row) => row.body);
}

/** The project's journal entries with these ids that exist, by creation time, then id. */
export async function findEntries(db: Pg, project: string, ids: readonly string[]): Promise<JournalEntry[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ body: journalEntries.body })
    .from(journalEntries)
    .where(and(eq(journalEntries.project, project), inArray(journalEntries.id, [...ids])))
    .orderBy(asc(journalEntries.createdAt), asc(journalEntries.id));
  return rows.map((row) => row.body);
}
