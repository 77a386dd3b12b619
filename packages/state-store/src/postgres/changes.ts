import { compareCodeUnits } from "@kxm/contract";
import { and, lt, lte, max, sql } from "drizzle-orm";
import type { ChangeBatch, ChangeKind, StoreChange } from "../types.js";
import { type Pg, snapshotTx } from "./db.js";
import { prepared } from "./prepared.js";
import { changes, changeHead as head } from "./schema.js";
import { snapshotVersions } from "./versions.js";

/** The channel every change is announced on (`NOTIFY kxm_changes, '<seq>'`). */
export const CHANGES_CHANNEL = "kxm_changes";

/** The most changes one call returns; a reader further behind than this rebuilds instead (`reset`). */
const CHANGE_BATCH_LIMIT = 1_000;

/**
 * Appends one change to the feed and answers its seq, as the SQLite store does. Call it inside a {@link writeTx}:
 * the seq comes from `change_head`, whose row lock the transaction holds until it commits, so seqs commit in order
 * and a reader that saw seq N has seen every change before it. An `items` or `journal` change also copies the
 * records it names into their versions (decision 0016).
 */
export async function appendChange(
  tx: Pg,
  project: string,
  kind: ChangeKind,
  ids: readonly string[],
  at: string | null,
): Promise<number> {
  const sorted = [...new Set(ids)].sort(compareCodeUnits);
  // One statement, where three would each cost a round trip: the head's next seq, the change under it, and the
  // notification, which the server delivers when the transaction commits, in commit order; it is only a wake-up
  // (the table is the truth). `ids` is stored as the JSON text the schema's json column writes.
  const [row] = await tx.execute<{ seq: string }>(sql`
    with next as (update change_head set seq = seq + 1 returning seq)
    insert into changes (seq, project, kind, ids, at)
    select next.seq, ${project}, ${kind}, ${JSON.stringify(sorted)}, ${at} from next
    returning seq, pg_notify(${CHANGES_CHANNEL}, seq::text)`);
  const seq = Number(row?.seq ?? 0);
  if (kind === "items") await snapshotVersions(tx, project, seq, "item", sorted);
  else if (kind === "journal") await snapshotVersions(tx, project, seq, "entry", sorted);
  return seq;
}

/** The highest seq ever given (0 for none). */
export async function changeHead(db: Pg): Promise<number> {
  const [row] = await db.select({ seq: head.seq }).from(head);
  return row?.seq ?? 0;
}

/**
 * The changes after `cursor`, oldest first, read in one snapshot; `reset` when the cursor cannot be continued
 * (retention pruned changes after it, it is ahead of the head, or more than {@link CHANGE_BATCH_LIMIT} follow).
 * The head is `change_head`'s seq: under the snapshot it is the newest committed change.
 */
export function changesSince(db: Pg, cursor: number): Promise<ChangeBatch> {
  return snapshotTx(db, (tx) => readBatch(tx, cursor));
}

/** The feed after `cursor`, inside the caller's snapshot. */
export async function readBatch(tx: Pg, cursor: number): Promise<ChangeBatch> {
  const { oldest, newest } = await feedBounds(tx);
  if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > newest || cursor < oldest - 1) {
    return { head: newest, reset: true, changes: [] };
  }
  if (cursor === newest) return { head: newest, reset: false, changes: [] };
  const rows = await tx
    .select({ seq: changes.seq, project: changes.project, kind: changes.kind, ids: changes.ids })
    .from(changes)
    .where(sql`${changes.seq} > ${cursor}`)
    .orderBy(changes.seq)
    .limit(CHANGE_BATCH_LIMIT + 1);
  if (rows.length > CHANGE_BATCH_LIMIT) return { head: newest, reset: true, changes: [] };
  return {
    head: newest,
    reset: false,
    changes: rows.map(
      (row): StoreChange => ({ seq: row.seq, project: row.project, kind: row.kind, ids: row.ids }),
    ),
  };
}

/** The feed's oldest and newest seqs (an empty feed: newest 0, oldest 1), in one statement. */
export async function feedBounds(db: Pg): Promise<{ oldest: number; newest: number }> {
  const [bounds] = await prepared(db, "kxm_feed_bounds", (pg, name) =>
    pg
      .select({
        oldest: sql<string | null>`min(${changes.seq})`,
        head: sql<string | null>`max(${changes.seq})`,
      })
      .from(changes)
      .prepare(name),
  ).execute();
  const newest = bounds?.head === null || bounds?.head === undefined ? 0 : Number(bounds.head);
  const oldest = bounds?.oldest === null || bounds?.oldest === undefined ? newest + 1 : Number(bounds.oldest);
  return { oldest, newest };
}

/**
 * Deletes the feed's oldest changes, up to the newest one written before the retention horizon, always keeping
 * the newest row (see the SQLite store's `pruneChanges`). Returns how many went.
 */
export async function pruneChanges(tx: Pg, horizon: string): Promise<number> {
  const [newest] = await tx.select({ seq: max(changes.seq) }).from(changes);
  const [last] = await tx
    .select({ seq: max(changes.seq) })
    .from(changes)
    .where(lt(changes.at, horizon));
  if (last?.seq === null || last?.seq === undefined || newest?.seq === null || newest?.seq === undefined)
    return 0;
  const deleted = await tx
    .delete(changes)
    .where(and(lte(changes.seq, Number(last.seq)), lt(changes.seq, Number(newest.seq))))
    .returning({ seq: changes.seq });
  return deleted.length;
}
