import { compareCodeUnits } from "@kxm/contract";
import type Database from "better-sqlite3";
import { and, lt, lte, max } from "drizzle-orm";
import { changes } from "../schema.js";
import type { ChangeBatch, ChangeKind, StoreChange } from "../types.js";
import type { Db } from "./db.js";
import { snapshotVersions } from "./versions.js";

/** The most changes one call returns; a reader further behind than this rebuilds instead (`reset`). */
const CHANGE_BATCH_LIMIT = 1_000;

/**
 * How many times this process has written the feed (appended or pruned), on any connection. A reader that saw the
 * same count, and no other connection's commit, knows the feed has not moved, however many other rows its own
 * connection wrote meanwhile (a packet's audit, a key's last use). Counted before the write commits, so a write
 * that rolls back costs a reader one needless read, never a missed change.
 */
let feedWrites = 0;

/** The count of {@link feedWrites} so far. */
export function feedWriteCount(): number {
  return feedWrites;
}

/**
 * Appends one change to the feed and answers its seq. Call it inside the write's own transaction, so the change
 * commits (or rolls back) with the write it describes. `ids` are sorted, so equal writes give equal rows. An
 * `items` or `journal` change also copies the records it names, as they now are, into their versions (decision
 * 0016), here so no writer can leave one out.
 */
export function appendChange(
  db: Db,
  project: string,
  kind: ChangeKind,
  ids: readonly string[],
  at: string | null,
): number {
  feedWrites += 1;
  const sorted = [...new Set(ids)].sort(compareCodeUnits);
  const seq = Number(db.insert(changes).values({ project, kind, ids: sorted, at }).run().lastInsertRowid);
  if (kind === "items") snapshotVersions(db, project, seq, "item", sorted);
  else if (kind === "journal") snapshotVersions(db, project, seq, "entry", sorted);
  return seq;
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
 * Reads the feed through statements prepared once: every request of a hub asks, so the read must not pay for
 * building its SQL each time.
 */
export class FeedReader {
  readonly #bounds: Database.Statement<[], { oldest: number | null; head: number | null }>;
  readonly #rows: Database.Statement<
    [number, number],
    { seq: number; project: string; kind: ChangeKind; ids: string }
  >;
  readonly #snapshot: (cursor: number) => ChangeBatch;

  constructor(sqlite: Database.Database) {
    // Two subqueries, not `min(seq), max(seq)` in one select: SQLite answers a lone min() or max() from the primary
    // key's b-tree in one step, but both together in one select scan the whole table, on every request.
    this.#bounds = sqlite.prepare(
      "select (select min(seq) from changes) as oldest, (select max(seq) from changes) as head",
    );
    this.#rows = sqlite.prepare(
      "select seq, project, kind, ids from changes where seq > ? order by seq limit ?",
    );
    // One deferred read transaction: the bounds and the rows come from one snapshot.
    this.#snapshot = sqlite.transaction((cursor: number) => this.#read(cursor)).deferred;
  }

  /**
   * The changes after `cursor`, oldest first, read in one snapshot. `reset` when the cursor cannot be continued:
   * retention pruned changes after it, it is ahead of the head (another database), or more than
   * {@link CHANGE_BATCH_LIMIT} changes follow it.
   */
  since(cursor: number): ChangeBatch {
    return this.#snapshot(cursor);
  }

  #read(cursor: number): ChangeBatch {
    const bounds = this.#bounds.get();
    const head = bounds?.head ?? 0;
    const oldest = bounds?.oldest ?? head + 1;
    if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > head || cursor < oldest - 1) {
      return { head, reset: true, changes: [] };
    }
    if (cursor === head) return { head, reset: false, changes: [] };
    const rows = this.#rows.all(cursor, CHANGE_BATCH_LIMIT + 1);
    if (rows.length > CHANGE_BATCH_LIMIT) return { head, reset: true, changes: [] };
    return {
      head,
      reset: false,
      changes: rows.map(
        (row): StoreChange => ({
          seq: row.seq,
          project: row.project,
          kind: row.kind,
          ids: JSON.parse(row.ids) as string[],
        }),
      ),
    };
  }
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
  feedWrites += 1;
  return db
    .delete(changes)
    .where(and(lte(changes.seq, last), lt(changes.seq, head)))
    .run().changes;
}
