// The engine-free half of stored packets (issue 20): the page size a listing accepts, and a stored row as the API
// answers it. Both stores' `packets.ts` build on it.
import { KxmError, type StoredPacket } from "@kxm/contract";

const MAX_PACKET_PAGE = 50;

/** A `packet_audits` row as either store reads it (JSON columns parsed). */
interface PacketRow {
  project: string;
  packetId: string;
  runId: string | null;
  rankerVersion: string;
  requestSha256: string;
  changeSeq: number;
  firstServedAt: string;
  lastServedAt: string;
  timesServed: number;
  sections: unknown;
  audit: unknown;
  inputs: unknown;
}

/** Refuses a page size outside 1..50 (`invalid_request`). */
export function checkPacketPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PACKET_PAGE) {
    throw new KxmError("invalid_request", `limit: must be an integer from 1 to ${MAX_PACKET_PAGE}`);
  }
}

export function toStoredPacket(row: PacketRow): StoredPacket {
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
