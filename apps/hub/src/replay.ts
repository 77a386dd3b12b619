// Replaying a stored packet (decision 0016): the same assembly as `/context`, over the records as of the packet's
// change seq, the memory commit it served, the rules active then and its clock, answering the same bytes or naming
// the input that did not come back.
import { RANKER_VERSION } from "@kxm/arbiter";
import {
  type AssembledPacket,
  type ContextRequest,
  KxmError,
  type PacketInputs,
  type ProjectRecord,
  type StoredPacket,
} from "@kxm/contract";
import { readCommittedMemory } from "@kxm/memory-git";
import type { FastifyBaseLogger } from "fastify";
import { assembleFromPool } from "./assembly.js";
import type { Authored } from "./authored.js";
import { toJournalRecords } from "./journal-records.js";
import { packetIdOf, requestDigest, withPacketId } from "./packet-audit.js";
import { ProjectPool } from "./project-pool.js";
import type { HubServices } from "./services.js";

/** The request as the packet's audit echoed it, with the task given back in the place `taskChars` holds. */
function requestWithTask(stored: StoredPacket, task: string): ContextRequest {
  const request: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored.audit.request)) {
    if (key === "taskChars") request.task = task;
    else request[key] = value;
  }
  return request as ContextRequest;
}

/**
 * The authored memory the packet served: the stored commit's facts and skills, with the stored gaps and audit
 * (git cannot give back a work tree, so what was uncommitted then is as the packet recorded it).
 */
async function authoredThen(
  project: ProjectRecord,
  stored: StoredPacket,
  inputs: PacketInputs,
): Promise<Authored> {
  const memory = stored.audit.memory;
  const commit = memory?.commit ?? null;
  const authored: Authored = {
    key: undefined,
    items: [],
    checkFailed: [],
    gaps: inputs.authoredGaps,
    memory,
  };
  if (commit === null) return authored;
  const root = project.checkoutRoot;
  if (root === null) {
    throw new KxmError(
      "replay_memory_unavailable",
      `this packet served memory commit ${commit}, and project ${project.id} has no checkout now`,
    );
  }
  const read = await readCommittedMemory(root, project.id, { commit });
  if (read.unavailable !== undefined) {
    const why =
      read.unavailable === "commit_missing"
        ? "is not in the project's checkout"
        : `cannot be read (${read.unavailable})`;
    throw new KxmError("replay_memory_unavailable", `memory commit ${commit} ${why}`);
  }
  if (read.revision !== memory?.revision) {
    throw new KxmError(
      "replay_mismatch",
      `memory commit ${commit} now gives revision ${read.revision}, not the packet's ${memory?.revision}`,
    );
  }
  return { ...authored, items: read.items, checkFailed: read.checkFailed };
}

/** The first input of the rebuilt packet that differs from the stored one, by name. */
function differingInput(rebuilt: PacketInputs, stored: PacketInputs): string {
  const inputs: (keyof PacketInputs)[] = ["pool", "contradictions", "withheld", "hubGaps"];
  const differs = inputs.find((name) => JSON.stringify(rebuilt[name]) !== JSON.stringify(stored[name]));
  const names: Record<string, string> = {
    pool: "the pool's items",
    contradictions: "the open contradictions",
    withheld: "the withheld items",
    hubGaps: "the hub's gaps",
  };
  return differs === undefined ? "the packet" : names[differs]!;
}

/**
 * Rebuilds a stored packet of the project from its history and the task it was asked for, and answers it exactly
 * as `/context` did (its id included), or fails naming what can no longer be had: the packet (404 `not_found`),
 * its ranker (`replay_ranker_changed`), the task (`replay_task_mismatch`), its records (`replay_history_purged`,
 * `replay_history_forgotten`), its memory commit (`replay_memory_unavailable`), or an input that came back
 * different (`replay_mismatch`). Nothing is stored: a replay is not a serving.
 */
export async function replayStoredPacket(
  hub: HubServices,
  projectId: string,
  packetId: string,
  task: string,
  log: FastifyBaseLogger,
): Promise<AssembledPacket> {
  const project = await hub.project(projectId);
  const stored = await hub.store.getPacket(project.id, packetId);
  if (stored === undefined) {
    throw new KxmError("not_found", `project ${project.id} has no stored packet ${packetId}`);
  }
  if (stored.rankerVersion !== RANKER_VERSION) {
    throw new KxmError(
      "replay_ranker_changed",
      `packet ${packetId} was ranked by ${stored.rankerVersion}; this hub ranks with ${RANKER_VERSION}`,
    );
  }
  const request = requestWithTask(stored, task);
  if (task.length !== stored.audit.request.taskChars || requestDigest(request) !== stored.requestSha256) {
    throw new KxmError(
      "replay_task_mismatch",
      `the task given is not the one packet ${packetId} was assembled for`,
    );
  }
  const inputs = stored.inputs;
  if (inputs === null) {
    throw new KxmError(
      "replay_history_purged",
      `packet ${packetId} was stored before the hub kept what a replay needs`,
    );
  }
  const [records, rules, authored] = await Promise.all([
    hub.store.recordsAsOf(project.id, stored.changeSeq),
    hub.store.withholdRules(project.id, stored.changeSeq),
    authoredThen(project, stored, inputs),
  ]);
  const nowMs = Date.parse(stored.firstServedAt);
  const pool = new ProjectPool(
    project,
    records.items,
    toJournalRecords(records.journal, log),
    authored,
    log,
    rules,
  );
  pool.withholdExpired(nowMs);
  const rebuilt = assembleFromPool(pool, request, nowMs);
  const id = packetIdOf(rebuilt.assembled.audit, rebuilt.inputs);
  if (id !== stored.packetId) {
    throw new KxmError(
      "replay_mismatch",
      `${differingInput(rebuilt.inputs, inputs)} of packet ${packetId} did not come back from history`,
    );
  }
  return withPacketId(rebuilt.assembled, id);
}
