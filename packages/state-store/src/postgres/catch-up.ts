import { namedRecords } from "../domain/changes.js";
import type { CatchUp } from "../types.js";
import { feedBounds, readBatch } from "./changes.js";
import { type Pg, snapshotTx } from "./db.js";
import { findItems } from "./items.js";
import { findEntries } from "./journal.js";

/**
 * The changes after `cursor` and the records they name in `projects`, in one snapshot: applying them leaves a
 * reader exactly at the batch's head.
 */
export async function catchUp(db: Pg, cursor: number, projects: readonly string[]): Promise<CatchUp> {
  // Every request asks, and most find nothing new: one statement (a snapshot of its own) says so in one round
  // trip, where the transaction below takes four.
  const bounds = await feedBounds(db);
  if (Number.isSafeInteger(cursor) && cursor === bounds.newest && cursor >= bounds.oldest - 1) {
    return { batch: { head: cursor, reset: false, changes: [] }, records: new Map() };
  }
  return snapshotTx(db, async (tx) => {
    const batch = await readBatch(tx, cursor);
    const records: CatchUp["records"] = new Map();
    for (const [project, ids] of namedRecords(batch, projects)) {
      records.set(project, {
        items: await findItems(tx, project, ids.items),
        entries: await findEntries(tx, project, ids.entries),
      });
    }
    return { batch, records };
  });
}
