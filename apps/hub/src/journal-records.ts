// A retained journal entry with the context item it becomes, as every pool index holds it.
import { type ContextItem, isKxmError, type JournalEntry } from "@kxm/contract";
import { journalEntryToItem } from "@kxm/provenance";
import type { FastifyBaseLogger } from "fastify";

/** A journal entry and its item. */
export interface JournalRecord {
  readonly entry: JournalEntry;
  readonly item: ContextItem;
}

/** The entry with its item, or undefined (logged, by id and code) when the entry cannot become an item. */
export function toJournalRecord(entry: JournalEntry, log: FastifyBaseLogger): JournalRecord | undefined {
  try {
    return { entry, item: journalEntryToItem(entry) };
  } catch (error) {
    if (!isKxmError(error)) throw error;
    log.warn({ event: "journal_entry_skipped", project: entry.project, entryId: entry.id, code: error.code });
    return undefined;
  }
}

/** The entries that convert, in their order; a malformed one is skipped and logged as {@link toJournalRecord} does. */
export function toJournalRecords(entries: readonly JournalEntry[], log: FastifyBaseLogger): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const entry of entries) {
    const record = toJournalRecord(entry, log);
    if (record !== undefined) records.push(record);
  }
  return records;
}
