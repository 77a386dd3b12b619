import { and, asc, gt, lt, lte, max, min } from "drizzle-orm";
import { changes } from "../schema.js";
import type { ChangeBatch, ChangeKind, StoreChange } from "../types.js";
import type { Db } from "./db.js";

/** The most changes one call returns; a reader further behind than this rebuilds instead (`reset`). */
export const CHANGE_BATCH_LIMIT = 1_000;

/**
 * Appends one change to the feed. Call it inside the write's own transaction, so the change commits (or rolls
 * back) with the write it describes. `ids` are sorted, so equal writes give equal rows.
 */
export function appendChange(
  db: Db,
  project: string,
  kind: ChangeKind,
  ids: readonly string[],
  at: string | null,
): void {
  const sorted = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  db.insert(changes).values({ project, kind, ids: sorted, at }).run();
}

/** The highest sequence number ever given (0 for none); the feed's newest row is never pruned, so it is the head. */
export function changeHead(db: Db): number {
  return (
    db
      .select({ head: max(changes.seq) })
      .from(changes)
      .get()?.head ?? 0
  );
}

/**
 * The changes after `cursor`, oldest first, read in one snapshot. `reset` when the cursor cannot be continued:
 * retention pruned changes after it, it is ahead of the head (another database), or more than
 * {@link CHANGE_BATCH_LIMIT} changes follow it.
 */
export function changesSince(db: Db, cursor: number): ChangeBatch {
  return db.transaction(
    () => {
      const bounds = db
        .select({ oldest: min(changes.seq), head: max(changes.seq) })
        .from(changes)
        .get();
      const head = bounds?.head ?? 0;
      const oldest = bounds?.oldest ?? head + 1;
      if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > head || cursor < oldest - 1) {
        return { head, reset: true, changes: [] };
      }
      if (cursor === head) return { head, reset: false, changes: [] };
      const rows = db
        .select()
        .from(changes)
        .where(gt(changes.seq, cursor))
        .orderBy(asc(changes.seq))
        .limit(CHANGE_BATCH_LIMIT + 1)
        .all();
      if (rows.length > CHANGE_BATCH_LIMIT) return { head, reset: true, changes: [] };
      return {
        head,
        reset: false,
        changes: rows.map(
          (row): StoreChange => ({ seq: row.seq, project: row.project, kind: row.kind, ids: row.ids }),
        ),
      };
    },
    { behavior: "deferred" },
  );
}

/**
 * Deletes the feed's oldest changes, up to the newest one written before the retention horizon, always keeping
 * the head row. Only ever a prefix goes, so "everything after cursor N" is either complete or reported as
 * `reset` (a reader whose cursor is before a pruned change rebuilds). A change without a time goes with the
 * prefix it sits in. Returns how many went.
 */
export function pruneChanges(db: Db, horizon: string): number {
  const head = changeHead(db);
  const last = db
    .select({ seq: max(changes.seq) })
    .from(changes)
    .where(lt(changes.at, horizon))
    .get()?.seq;
  if (last === undefined || last === null) return 0;
  return db
    .delete(changes)
    .where(and(lte(changes.seq, last), lt(changes.seq, head)))
    .run().changes;
}
