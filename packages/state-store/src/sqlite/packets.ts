import type { StoredPacket } from "@kxm/contract";
import type Database from "better-sqlite3";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { decodeCursor, encodeCursor } from "../domain/cursor.js";
import { checkPacketPageLimit, toStoredPacket } from "../domain/packets.js";
import { packetAudits } from "../schema.js";
import { isoTime } from "../time.js";
import type { PacketPage, PacketPageOptions, PacketRecordInput } from "../types.js";
import type { Db } from "./db.js";

/**
 * Records packets served, through statements prepared once (every packet a hub answers is written here first): in
 * one `BEGIN IMMEDIATE` transaction, a known (project, packet id) only gets the later last-served time and one more
 * serving, with no audit serialized again; a new one gets its row. The first serving's audit, ranker version and
 * change seq stay: equal ids have equal inputs. A row of an unknown project fails the whole batch.
 */
export class PacketRecorder {
  readonly #touch: Database.Statement<[string, string, string]>;
  readonly #insert: Database.Statement<unknown[]>;
  readonly #write: (records: readonly PacketRecordInput[]) => void;

  constructor(sqlite: Database.Database) {
    this.#touch = sqlite.prepare(
      "update packet_audits set last_served_at = max(last_served_at, ?), times_served = times_served + 1 where project = ? and packet_id = ?",
    );
    this.#insert = sqlite.prepare(
      "insert into packet_audits (project, packet_id, run_id, ranker_version, request_sha256, change_seq, first_served_at, last_served_at, times_served, sections, audit, inputs) values (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
    );
    this.#write = sqlite.transaction((records: readonly PacketRecordInput[]) => {
      for (const record of records) this.#one(record);
    }).immediate;
  }

  record(records: readonly PacketRecordInput[]): void {
    if (records.length > 0) this.#write(records);
  }

  #one(record: PacketRecordInput): void {
    const servedAt = isoTime(record.servedAt, "servedAt");
    if (this.#touch.run(servedAt, record.project, record.packetId).changes > 0) return;
    this.#insert.run(
      record.project,
      record.packetId,
      record.runId,
      record.rankerVersion,
      record.requestSha256,
      record.changeSeq,
      servedAt,
      servedAt,
      JSON.stringify(record.sections),
      JSON.stringify(record.audit),
      record.inputs === null ? null : JSON.stringify(record.inputs),
    );
  }
}

/** The project's stored packets, last served first (then packet id, descending), one page at a time. */
export function listPackets(db: Db, project: string, options: PacketPageOptions): PacketPage {
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
