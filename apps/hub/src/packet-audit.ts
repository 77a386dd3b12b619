// Packet ids and stored packet audits (decision 0016). A packet's id is a hash of every input of its assembly, so
// the same inputs give the same id and the same bytes; the hub stores each packet's audit, without the task text,
// before it answers.
import { createHash } from "node:crypto";
import { RANKER_VERSION } from "@kxm/arbiter";
import {
  type AssembledPacket,
  PACKET_SECTIONS,
  type PacketAudit,
  type PacketInputs,
  type StoredPacket,
} from "@kxm/contract";
import type { KxmStore, PacketRecordInput } from "@kxm/state-store";

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The SHA-256 of the request's JSON as the audit echoes it: what a stored packet keeps of its task. */
export function requestDigest(request: PacketAudit["request"]): string {
  return sha256(JSON.stringify(request));
}

/**
 * `pkt_` + the first 32 hex digits of the SHA-256 of one JSON text, its keys in this fixed order: the ranker
 * version, the request as the audit echoes it (its keys in the arbiter's fixed order), the pool's digest, the
 * contradictions, the withheld items, the memory commit and revision served (null without a checkout) and the
 * hub's gaps (the authored-memory ones among them, which a commit and revision do not fix: an uncommitted file is a
 * gap of its own). `authoredGaps` is not hashed apart: it is the first part of `hubGaps`.
 */
export function packetIdOf(audit: PacketAudit, inputs: Omit<PacketInputs, "authoredGaps">): string {
  const memory =
    audit.memory === undefined ? null : { commit: audit.memory.commit, revision: audit.memory.revision };
  const canonical = JSON.stringify({
    ranker: RANKER_VERSION,
    request: audit.request,
    pool: inputs.pool,
    contradictions: inputs.contradictions,
    withheld: inputs.withheld,
    memory,
    hubGaps: inputs.hubGaps,
  });
  return `pkt_${sha256(canonical).slice(0, 32)}`;
}

/** The packet with its id as the audit's last key. */
export function withPacketId(assembled: AssembledPacket, packetId: string): AssembledPacket {
  return { packet: assembled.packet, audit: { ...assembled.audit, packetId } };
}

/**
 * The audit as stored: every key of the served audit in its order, but `packetId` (the row's own key) and the
 * request's task, whose place `taskChars` (its length) takes. Generic over the audit's keys, so a key the arbiter
 * adds is stored with no change here.
 */
function storedAudit(audit: PacketAudit): StoredPacket["audit"] {
  const request: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(audit.request)) {
    if (key === "task") request.taskChars = audit.request.task.length;
    else request[key] = value;
  }
  const stored: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(audit)) {
    if (key === "packetId") continue;
    stored[key] = key === "request" ? request : value;
  }
  return stored as StoredPacket["audit"];
}

/** What the store records of a served packet. */
export function packetRecord(
  assembled: AssembledPacket,
  packetId: string,
  changeSeq: number,
  servedAt: Date,
  inputs: PacketInputs,
): PacketRecordInput {
  const { audit } = assembled;
  return {
    project: audit.request.project,
    packetId,
    runId: audit.request.runId ?? null,
    rankerVersion: RANKER_VERSION,
    requestSha256: requestDigest(audit.request),
    changeSeq,
    sections: Object.fromEntries(
      PACKET_SECTIONS.map((section) => [section, assembled.packet[section].map((item) => item.id)]),
    ) as StoredPacket["sections"],
    audit: storedAudit(audit),
    inputs,
    servedAt,
  };
}

/**
 * Writes the packets of one event-loop turn in one transaction (group commit): the first packet of a turn
 * schedules the write for the end of the turn's I/O callbacks (`setImmediate`), every packet of the turn joins it,
 * and each request answers once the write has committed, so no packet is answered without its audit stored. A
 * failed write fails every request of the batch.
 */
export class PacketAuditWriter {
  private batch: { record: PacketRecordInput; done: (error?: unknown) => void }[] = [];

  constructor(private readonly store: KxmStore) {}

  record(record: PacketRecordInput): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => this.flush());
      this.batch.push({ record, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    try {
      await this.store.recordPackets(batch.map((entry) => entry.record));
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.done(error ?? new Error("the packet audits could not be stored"));
    }
  }
}
