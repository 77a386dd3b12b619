// Record versions on PostgreSQL (decision 0016): the same rows and reads as `../sqlite/versions.ts`.
import { type ContextItem, compareCodeUnits, type JournalEntry, KxmError } from "@kxm/contract";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import type { VersionKind } from "../sqlite/versions.js";
import type { RecordsAsOf } from "../types.js";
import { type Pg, snapshotTx } from "./db.js";

/**
 * Copies the named records, as they now are, into `record_versions` at `seq`; a record that no longer exists gets
 * a deletion marker (a NULL body). Call it inside the write's transaction, with the seq of the change naming them.
 */
export async function snapshotVersions(
  tx: Pg,
  project: string,
  seq: number,
  kind: VersionKind,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const table = kind === "item" ? sql`items` : sql`journal_entries`;
  await tx.execute(sql`insert into record_versions (project, seq, kind, record_id, body, forgotten)
    select ${project}, ${seq}, ${kind}, j.id, (select r.body from ${table} r where r.project = ${project} and r.id = j.id), false
    from json_array_elements_text(${JSON.stringify(ids)}::json) as j(id)`);
}

/**
 * Whether `body` (the text `JSON.stringify` made of an item or journal entry) holds this summary, as SQLite's
 * `json_extract(body, '$.summary') = ?` answers it. It looks for `"summary":` followed by the summary's JSON text
 * instead of parsing the body: PostgreSQL's JSON functions de-escape, and fail the whole statement on a row whose
 * text holds `\u0000` (which its text type cannot), so one such stored summary would stop every forgetting in the
 * project. The match is exact: a quote inside a JSON string is always escaped, so `"summary":"` only occurs as the
 * key, which only the top level of these records has, and the summary's JSON text ends where its string ends.
 */
export function summaryIs(body: AnyColumn | SQL, summary: string): SQL {
  return sql`strpos(${body}, ${`"summary":${JSON.stringify(summary)}`}) > 0`;
}

/**
 * Forgetting keeps no content (decision 0017): every version of the project whose body holds this summary loses
 * its body and is marked forgotten; deletion markers stay as they are.
 */
export async function forgetVersions(tx: Pg, project: string, summary: string): Promise<void> {
  await tx.execute(sql`update record_versions set body = null, forgotten = true
    where project = ${project} and body is not null and ${summaryIs(sql`body`, summary)}`);
}

interface VersionRow extends Record<string, unknown> {
  kind: VersionKind;
  record_id: string;
  body: string | null;
  forgotten: boolean;
}

/**
 * The project's items and journal entries as they stood once every change up to `seq` was applied, as the SQLite
 * store's `recordsAsOf` answers them, read in one snapshot.
 */
export function recordsAsOf(db: Pg, project: string, seq: number): Promise<RecordsAsOf> {
  if (!Number.isSafeInteger(seq) || seq < 0) {
    return Promise.reject(new KxmError("invalid_request", "seq: must be a whole number, 0 or more"));
  }
  return snapshotTx(db, async (tx) => {
    const [floorRow] = await tx.execute<{ floor: string }>(
      sql`select floor from history_floors where project = ${project}`,
    );
    const floor = floorRow === undefined ? 0 : Number(floorRow.floor);
    if (seq < floor) {
      throw new KxmError(
        "replay_history_purged",
        `retention purged the history of project ${project} before change ${floor}; this packet read change ${seq}`,
      );
    }
    const [headRow] = await tx.execute<{ head: string | null }>(sql`select max(seq) as head from changes`);
    if (seq > Number(headRow?.head ?? 0)) {
      throw new KxmError("replay_history_purged", `change ${seq} is not in this database's history`);
    }
    const rows = await tx.execute<VersionRow>(sql`select distinct on (v.kind, v.record_id)
        v.kind, v.record_id, v.body, v.forgotten
      from record_versions v where v.project = ${project} and v.seq <= ${seq}
      order by v.kind, v.record_id, v.seq desc`);
    const items: ContextItem[] = [];
    const journal: JournalEntry[] = [];
    const forgotten: string[] = [];
    for (const row of rows) {
      if (row.forgotten) forgotten.push(row.kind === "item" ? row.record_id : `journal_${row.record_id}`);
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
 * Retention's part (decision 0016), as the SQLite store's `pruneVersions`: each project's floor rises to the
 * oldest change seq a stored packet read (the head when none is stored), then every version no read at or after
 * the floor can reach goes. Returns how many versions went.
 */
export async function pruneVersions(tx: Pg): Promise<number> {
  const [headRow] = await tx.execute<{ head: string | null }>(sql`select max(seq) as head from changes`);
  const head = Number(headRow?.head ?? 0);
  await tx.execute(sql`insert into history_floors (project, floor)
    select p.id, coalesce((select min(a.change_seq) from packet_audits a where a.project = p.id), ${head})
    from projects p
    on conflict (project) do update set floor = greatest(history_floors.floor, excluded.floor)`);
  const hidden =
    await tx.execute(sql`delete from record_versions v where exists (select 1 from record_versions w
      join history_floors f on f.project = w.project
      where w.project = v.project and w.kind = v.kind and w.record_id = v.record_id
        and w.seq > v.seq and w.seq <= f.floor)`);
  const markers = await tx.execute(sql`delete from record_versions v where v.body is null and not v.forgotten
      and v.seq <= (select f.floor from history_floors f where f.project = v.project)`);
  await tx.execute(sql`delete from item_contributors c where not exists (select 1 from items i
      where i.project = c.project and i.id = c.item_id)
    and not exists (select 1 from record_versions v
      where v.project = c.project and v.kind = 'item' and v.record_id = c.item_id)`);
  return hidden.count + markers.count;
}
