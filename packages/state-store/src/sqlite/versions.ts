// Record versions (decision 0016): every item and journal entry as it stood after each change that named it, so
// a stored packet's records can be read back as of its change seq, and retention keeps exactly what the oldest
// stored packet needs.
import { type ContextItem, compareCodeUnits, type JournalEntry, KxmError } from "@kxm/contract";
import type Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import type { RecordsAsOf } from "../types.js";
import type { Db } from "./db.js";

/** A record kind as versions name it: a stored item, or a journal entry (by its entry id). */
export type VersionKind = "item" | "entry";

/**
 * Copies the named records, as they now are, into `record_versions` at `seq`: a record that no longer exists gets
 * a deletion marker (a NULL body). Call it inside the write's transaction, with the seq of the change naming them.
 */
export function snapshotVersions(
  db: Db,
  project: string,
  seq: number,
  kind: VersionKind,
  ids: readonly string[],
): void {
  if (ids.length === 0) return;
  snapshotStatements(db)[kind].run(project, seq, kind, project, JSON.stringify(ids));
}

/** The two snapshot statements of one connection, prepared once: every items and journal write runs one. */
const SNAPSHOTS = new WeakMap<object, Record<VersionKind, Database.Statement<unknown[]>>>();

function snapshotStatements(db: Db): Record<VersionKind, Database.Statement<unknown[]>> {
  // The connection under Drizzle (drizzle() sets `$client`; the shared Db type leaves it out).
  const sqlite = (db as Db & { $client: Database.Database }).$client;
  let statements = SNAPSHOTS.get(sqlite);
  if (statements === undefined) {
    const snapshot = (table: string) =>
      sqlite.prepare(`insert into record_versions (project, seq, kind, record_id, body, forgotten)
        select ?, ?, ?, j.value, (select body from ${table} r where r.project = ? and r.id = j.value), 0
        from json_each(?) j`);
    statements = { item: snapshot("items"), entry: snapshot("journal_entries") };
    SNAPSHOTS.set(sqlite, statements);
  }
  return statements;
}

/**
 * Forgetting keeps no content (decision 0017): every version of the project whose body holds this summary, of a
 * record deleted now or long ago, loses its body and is marked forgotten. Deletion markers stay as they are: the
 * record was absent then, which an as-of read may still say.
 */
export function forgetVersions(db: Db, project: string, summary: string): void {
  db.run(sql`update record_versions set body = null, forgotten = 1
    where project = ${project} and body is not null and json_extract(body, '$.summary') = ${summary}`);
}

/** The first change seq of the project from which its records can be read back (0 when nothing was pruned). */
function historyFloor(db: Db, project: string): number {
  const row = db.get<{ floor: number } | undefined>(
    sql`select floor from history_floors where project = ${project}`,
  );
  return row?.floor ?? 0;
}

/** The feed's head, read here rather than from changes.ts, which writes versions through this module. */
function feedHead(db: Db): number {
  return db.get<{ head: number | null }>(sql`select max(seq) as head from changes`)?.head ?? 0;
}

interface VersionRow {
  kind: VersionKind;
  record_id: string;
  body: string | null;
  forgotten: number;
}

/**
 * The project's items and journal entries as they stood once every change up to `seq` was applied: for each
 * record, its newest version at or before `seq`, a deletion marker meaning absent. Items come by id, entries by
 * creation time then id, as `liveItems` and `listJournal` order them. A seq below the project's history floor is
 * 410 `replay_history_purged`; a record whose version was forgotten since is 410 `replay_history_forgotten`,
 * naming it. One snapshot.
 */
export function recordsAsOf(db: Db, project: string, seq: number): RecordsAsOf {
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new KxmError("invalid_request", "seq: must be a whole number, 0 or more");
  }
  return db.transaction(() => {
    const floor = historyFloor(db, project);
    if (seq < floor) {
      throw new KxmError(
        "replay_history_purged",
        `retention purged the history of project ${project} before change ${floor}; this packet read change ${seq}`,
      );
    }
    if (seq > feedHead(db)) {
      throw new KxmError("replay_history_purged", `change ${seq} is not in this database's history`);
    }
    const rows = db.all<VersionRow>(sql`select v.kind, v.record_id, v.body, v.forgotten from record_versions v
      where v.project = ${project} and v.seq = (select max(w.seq) from record_versions w
        where w.project = v.project and w.kind = v.kind and w.record_id = v.record_id and w.seq <= ${seq})`);
    const items: ContextItem[] = [];
    const journal: JournalEntry[] = [];
    const forgotten: string[] = [];
    for (const row of rows) {
      if (row.forgotten !== 0)
        forgotten.push(row.kind === "item" ? row.record_id : `journal_${row.record_id}`);
      else if (row.body === null) continue;
      else if (row.kind === "item") items.push(JSON.parse(row.body) as ContextItem);
      else journal.push(JSON.parse(row.body) as JournalEntry);
    }
    if (forgotten.length > 0) {
      const names = forgotten.sort(compareCodeUnits);
      throw new KxmError(
        "replay_history_forgotten",
        `${names.length === 1 ? "a record" : `${names.length} records`} this packet read ${names.length === 1 ? "was" : "were"} forgotten since: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""}`,
      );
    }
    items.sort((a, b) => compareCodeUnits(a.id, b.id));
    journal.sort((a, b) => compareCodeUnits(a.createdAt, b.createdAt) || compareCodeUnits(a.id, b.id));
    return { items, journal };
  });
}

/**
 * Retention's part (decision 0016): each project's floor rises to the oldest change seq a stored packet read (the
 * feed head when none is stored), then every version no read at or after the floor can reach goes: one a newer
 * version at or before the floor hides, then a deletion marker at or before it. Call it after the packets retention deletes are gone. Returns how many
 * versions went.
 */
export function pruneVersions(db: Db): number {
  const head = feedHead(db);
  db.run(sql`insert into history_floors (project, floor)
    select p.id, coalesce((select min(a.change_seq) from packet_audits a where a.project = p.id), ${head})
    from projects p where true
    on conflict (project) do update set floor = max(floor, excluded.floor)`);
  const hidden = db.run(sql`delete from record_versions as v where exists (select 1 from record_versions w
      join history_floors f on f.project = w.project
      where w.project = v.project and w.kind = v.kind and w.record_id = v.record_id
        and w.seq > v.seq and w.seq <= f.floor)`).changes;
  // What is left at or before a floor is each record's newest version there: a deletion marker says "absent",
  // which no version at all says too.
  const markers = db.run(sql`delete from record_versions as v where v.body is null and v.forgotten = 0
      and v.seq <= (select f.floor from history_floors f where f.project = v.project)`).changes;
  // A contributor row is kept while its item, or a version of it a replay may read, is.
  db.run(sql`delete from item_contributors as c where not exists (select 1 from items i
      where i.project = c.project and i.id = c.item_id)
    and not exists (select 1 from record_versions v
      where v.project = c.project and v.kind = 'item' and v.record_id = c.item_id)`);
  return hidden + markers;
}
