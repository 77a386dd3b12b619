// What the hub holds that the pages are checked against: the status of every reviewed record, by item id.
import type { WikiRecords } from "@kxm/contract";
import { journalItemId } from "../layout.js";

/** The status of every reviewed record the hub holds, by item id. */
export function recordStatuses(records: WikiRecords): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const item of records.state) {
    if (item.status === "current" || item.status === "superseded") statuses.set(item.id, item.status);
  }
  for (const item of records.memory) statuses.set(item.id, "active");
  for (const item of records.skills) statuses.set(item.id, "promoted");
  for (const row of records.journal) statuses.set(journalItemId(row.entry.id), "reviewed");
  return statuses;
}
