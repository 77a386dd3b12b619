// Stored packet audits on PostgreSQL (issue 20): the same rows and reads as `../sqlite/packets.ts`.
import { compareCodeUnits, type StoredPacket } from "@kxm/contract";
import { and, desc, eq, lt, or, type SQL, sql } from "drizzle-orm";
import { decodeCursor, encodeCursor } from "../domain/cursor.js";
import { checkPacketPageLimit, toStoredPacket } from "../domain/packets.js";
import { isoTime } from "../time.js";
import type { PacketPage, PacketPageOptions, PacketRecordInput } from "../types.js";
import type { Pg } from "./db.js";
import { prepared } from "./prepared.js";
import { packetAudits } from "./schema.js";

/** Rows per insert statement: 12 parameters each, far below PostgreSQL's 65 535 per statement. */
const ROWS_PER_INSERT = 500;

/**
 * Records packets served in one transaction, with the SQLite store's semantics: a known (project, packet id) only
 * gets the later last-served time and one more serving per record; a new one gets its row, whose audit, ranker
 * version and change seq are the first record's (equal ids have equal inputs). The batch is first folded to one
 * row per packet (the first record's, with the latest serving and the count), then upserted: `on conflict` keeps
 * the stored audit and first-served time. A row of an unknown project fails the whole batch (a foreign key error).
 */
export async function recordPackets(db: Pg, records: readonly PacketRecordInput[]): Promise<void> {
  if (records.length === 0) return;
  const rows = new Map<
    string,
    typeof packetAudits.$inferInsert & { lastServedAt: string; timesServed: number }
  >();
  for (const record of records) {
    const servedAt = isoTime(record.servedAt, "servedAt");
    const key = JSON.stringify([record.project, record.packetId]);
    const known = rows.get(key);
    if (known !== undefined) {
      // ISO times compare as text, as SQLite's max() compares them.
      if (servedAt > known.lastServedAt) known.lastServedAt = servedAt;
      known.timesServed += 1;
      continue;
    }
    rows.set(key, {
      project: record.project,
      packetId: record.packetId,
      runId: record.runId,
      rankerVersion: record.rankerVersion,
      requestSha256: record.requestSha256,
      changeSeq: record.changeSeq,
      firstServedAt: servedAt,
      lastServedAt: servedAt,
      timesServed: 1,
      sections: record.sections,
      audit: record.audit,
      inputs: record.inputs,
    });
  }
  // In one order on every hub: two hubs upserting the same packets in different orders would each hold a row
  // the other waits for, a deadlock PostgreSQL breaks only after a second by failing one of the batches.
  const all = [...rows.entries()].sort(([a], [b]) => compareCodeUnits(a, b)).map(([, row]) => row);
  // One statement is atomic by itself: a transaction around it would cost every packet two more round trips.
  // A batch of one, what a hub not under load writes for every packet, is a statement prepared once.
  const [only] = all;
  if (all.length === 1 && only !== undefined) {
    await prepared(db, "kxm_record_packet", (pg, name) =>
      upsertWith(pg, PACKET_PLACEHOLDERS).prepare(name),
    ).execute(only);
    return;
  }
  if (all.length <= ROWS_PER_INSERT) {
    await upsertWith(db, all);
    return;
  }
  await db.transaction(async (tx) => {
    for (let start = 0; start < all.length; start += ROWS_PER_INSERT) {
      await upsertWith(tx, all.slice(start, start + ROWS_PER_INSERT));
    }
  });
}

type PacketRow = typeof packetAudits.$inferInsert;

/** Every column a packet's row is written with, each as the placeholder of the same name. */
const PACKET_PLACEHOLDERS = Object.fromEntries(
  (
    [
      "project",
      "packetId",
      "runId",
      "rankerVersion",
      "requestSha256",
      "changeSeq",
      "firstServedAt",
      "lastServedAt",
      "timesServed",
      "sections",
      "audit",
      "inputs",
    ] satisfies (keyof PacketRow)[]
  ).map((column) => [column, sql.placeholder(column)]),
) as unknown as PacketRow;

/** The upsert of packet rows: a known packet keeps its row, gets the later last-served time and the servings. */
function upsertWith(db: Pg, rows: PacketRow | PacketRow[]) {
  return db
    .insert(packetAudits)
    .values(rows as PacketRow[])
    .onConflictDoUpdate({
      target: [packetAudits.project, packetAudits.packetId],
      set: {
        lastServedAt: sql`greatest(${packetAudits.lastServedAt}, excluded.last_served_at)`,
        timesServed: sql`${packetAudits.timesServed} + excluded.times_served`,
      },
    });
}

/** The project's stored packets, last served first (then packet id, descending), one page at a time. */
export async function listPackets(db: Pg, project: string, options: PacketPageOptions): Promise<PacketPage> {
  const { limit } = options;
  checkPacketPageLimit(limit);
  const conditions: SQL[] = [eq(packetAudits.project, project)];
  if (options.runId !== undefined) conditions.push(eq(packetAudits.runId, options.runId));
  if (options.before !== undefined) {
    const cursor = decodeCursor(options.before);
    conditions.push(
      or(
        lt(packetAudits.lastServedAt, cursor.at),
        and(eq(packetAudits.lastServedAt, cursor.at), lt(packetAudits.packetId, cursor.id)),
      )!,
    );
  }
  const rows = await db
    .select()
    .from(packetAudits)
    .where(and(...conditions))
    .orderBy(desc(packetAudits.lastServedAt), desc(packetAudits.packetId))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const out: PacketPage = { packets: page.map(toStoredPacket) };
  const last = page[page.length - 1];
  if (rows.length > limit && last !== undefined) {
    out.nextCursor = encodeCursor({ at: last.lastServedAt, id: last.packetId });
  }
  return out;
}

/** One stored packet of the project, or undefined (another project's packet too). */
export async function getPacket(
  db: Pg,
  project: string,
  packetId: string,
): Promise<StoredPacket | undefined> {
  const [row] = await db
    .select()
    .from(packetAudits)
    .where(and(eq(packetAudits.project, project), eq(packetAudits.packetId, packetId)));
  return row === undefined ? undefined : toStoredPacket(row);
}
