import { type ContextItem, compareCodeUnits, type JournalEntry } from "@kxm/contract";
import type Database from "better-sqlite3";

/**
 * Reads the records a change names, through statements prepared once: a hub re-reads them after every write on
 * the database, so the read must not pay for building its SQL each time. The ids go in as one JSON array.
 */
export class ChangedRecords {
  readonly #items: Database.Statement<[string, string], { body: string }>;
  readonly #entries: Database.Statement<[string, string], { body: string }>;

  constructor(sqlite: Database.Database) {
    this.#items = sqlite.prepare(
      "select body from items where project = ? and id in (select value from json_each(?))",
    );
    this.#entries = sqlite.prepare(
      "select body from journal_entries where project = ? and id in (select value from json_each(?))" +
        " order by created_at, id",
    );
  }

  /** The project's items with these ids that exist, by id (code-unit order). */
  items(project: string, ids: readonly string[]): ContextItem[] {
    if (ids.length === 0) return [];
    return this.#items
      .all(project, JSON.stringify(ids))
      .map((row) => JSON.parse(row.body) as ContextItem)
      .sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  /** The project's journal entries with these ids that exist, by creation time, then id. */
  entries(project: string, ids: readonly string[]): JournalEntry[] {
    if (ids.length === 0) return [];
    return this.#entries.all(project, JSON.stringify(ids)).map((row) => JSON.parse(row.body) as JournalEntry);
  }
}
