import { KxmError, type StoredPacket } from "@kxm/contract";
import { and, desc, eq, lt, or, type SQL, sql } from "drizzle-orm";
import { decodeCursor, encodeCursor } from "../domain/cursor.js";
import { packetAudits } from "../schema.js";
import { isoTime } from "../time.js";
import type { PacketPage, PacketPageOptions, PacketRecordInput } from "../types.js";
import { type Db, immediate } from "./db.js";

const MAX_PACKET_PAGE = 50;

type Row = typeof packetAudits.$inferSelect;

function toStoredPacket(row: Row): StoredPacket {
  return {
    packetId: row.packetId,
    project: row.project,
    runId: row.runId,
    rankerVersion: row.rankerVersion,
    requestSha256: row.requestSha256,
    changeSeq: row.changeSeq,
    firstServedAt: row.firstServedAt,
    lastServedAt: row.lastServedAt,
    timesServed: row.timesServed,
    sections: row.sections as StoredPacket["sections"],
    audit: row.audit as StoredPacket["audit"],
    inputs: (row.inputs ?? null) as StoredPacket["inputs"],
  };
}

/**
 * Records packets served, in one transaction: a new packet id gets a row, a known one (same project) only its
 * last-served time (the later of the two) and one more serving. The first serving's audit, ranker version and
 * change-feed position stay: equal ids have equal inputs.
 */
export function recordPackets(db: Db, records: readonly PacketRecordInput[]): void {
  if (records.length === 0) return;
  immediate(db, () => {
    for (const record of records) {
      const servedAt = isoTime(record.servedAt, "servedAt");
      db.insert(packetAudits)
        .values({
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
        })
        .onConflictDoUpdate({
          target: [packetAudits.project, packetAudits.packetId],
          set: {
            lastServedAt: sql`max(${packetAudits.lastServedAt}, excluded.last_served_at)`,
            timesServed: sql`${packetAudits.timesServed} + 1`,
          },
        })
        .run();
    }
  });
}

/** The project's stored packets, last served first (then packet id, descending), one page at a time. */
export function listPackets(db: Db, project: string, options: PacketPageOptions): PacketPage {
  const { limit } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PACKET_PAGE) {
    throw new KxmError("invalid_request", `limit: must be an integer from 1 to ${MAX_PACKET_PAGE}`);
  }
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
  const rows = db
    .select()
    .from(packetAudits)
    .where(and(...conditions))
    .orderBy(desc(packetAudits.lastServedAt), desc(packetAudits.packetId))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  const out: PacketPage = { packets: page.map(toStoredPacket) };
  const last = page[page.length - 1];
  if (rows.length > limit && last !== undefined) {
    out.nextCursor = encodeCursor({ at: last.lastServedAt, id: last.packetId });
  }
  return out;
}

/** One stored packet of the project, or undefined (another project's packet too). */
export function getPacket(db: Db, project: string, packetId: string): StoredPacket | undefined {
  const row = db
    .select()
    .from(packetAudits)
    .where(and(eq(packetAudits.project, project), eq(packetAudits.packetId, packetId)))
    .get();
  return row === undefined ? undefined : toStoredPacket(row);
}
