import { assemblePacket } from "@kxm/arbiter";
import {
  type AssembledPacket,
  type ContextItem,
  type ContextRequest,
  NAMED_ROLES,
  type PacketMemory,
  rolePolicy,
} from "@kxm/contract";
import { explainLineage } from "@kxm/provenance";
import { reviewDueGaps } from "../expiry.js";
import { type PacketInputs, packetIdOf, packetRecord, withPacketId } from "../packet-audit.js";
import { poolDigest } from "../pool-digest.js";
import type { ProjectPool } from "../project-pool.js";
import type { HubServices } from "../services.js";
import { withheldGaps } from "../withheld.js";
import type { RouteHandler } from "./types.js";

/**
 * A project's pool with its authored memory and skills up to date with its checkout, and every item whose
 * `expiresAt` the hub's clock has reached withheld.
 */
export async function freshPool(hub: HubServices, projectId: string): Promise<ProjectPool> {
  const pool = await hub.pools.get(await hub.project(projectId));
  await pool.refreshAuthored();
  pool.withholdExpired(hub.now().getTime());
  return pool;
}

/**
 * The gaps that follow the arbiter's and the authored memory's: `items_withheld:<reason>:<n>` for what the pool
 * withheld from this packet or recall, then `review_due:<id>` per served item past its `reviewBy` at `nowMs`.
 */
function expiryGaps(
  pool: ProjectPool,
  withheld: Parameters<typeof withheldGaps>[0],
  servedIds: readonly string[],
  nowMs: number,
): string[] {
  const whole = pool.wholeIndex();
  return [
    ...withheldGaps(withheld),
    ...reviewDueGaps(
      servedIds.map((id) => whole.get(id)),
      nowMs,
    ),
  ];
}

/** The role as the log may name it: a named role, or `custom` (a custom role name is caller text). */
function loggedRole(role: string): string {
  return (NAMED_ROLES as readonly string[]).includes(role) ? role : "custom";
}

/**
 * The packet with the checkout's authored-memory gaps after the arbiter's, in the packet and the audit alike, and
 * the audit's `memory` last: what memory the packet carries and what was withheld.
 */
function withAuthored(
  assembled: AssembledPacket,
  gaps: readonly string[],
  memory: PacketMemory | undefined,
): AssembledPacket {
  const unresolvedGaps = [...assembled.packet.unresolvedGaps, ...gaps];
  return {
    packet: { ...assembled.packet, unresolvedGaps },
    audit: {
      ...assembled.audit,
      unresolvedGaps: [...unresolvedGaps],
      ...(memory === undefined ? {} : { memory }),
    },
  };
}

/**
 * The packet with its id (the audit's last key), once its audit is stored: the id hashes the request, the pool's
 * digest and the other inputs, and the store keeps the audit without the task text (packet-audit.ts).
 */
async function keepPacket(
  hub: HubServices,
  assembled: AssembledPacket,
  inputs: PacketInputs,
): Promise<AssembledPacket> {
  const packetId = packetIdOf(assembled.audit, inputs);
  const kept = withPacketId(assembled, packetId);
  await hub.packets.record(packetRecord(kept, packetId, hub.pools.feedPosition, hub.now()));
  return kept;
}

/**
 * Assembles a packet for the path's project. Without `runId` and `stage` it is served from the role's index; with
 * either, the journal items are filtered to that run and stage and the plain `assemblePacket` assembles base items
 * plus those (docs/reference/behaviour.md section 9 point 3). Logs sizes and counts, never the task.
 */
export const getContext: RouteHandler<"getContext"> = async ({ params, body, hub, log }) => {
  const started = performance.now();
  const pool = await freshPool(hub, params.project);
  const request: ContextRequest = { ...body, project: params.project };
  let assembled: ReturnType<typeof assemblePacket>;
  const categories = rolePolicy(body.role).journalCategories;
  const filter = {
    ...(body.runId === undefined ? {} : { runId: body.runId }),
    ...(body.stage === undefined ? {} : { stage: body.stage }),
  };
  // What a rule below the arbiter withheld from this packet: counted in its gaps, and a near miss when it matches.
  const withheld = pool.withheldItems(categories, filter);
  const options = { contradictionIds: pool.openContradictionIds(), withheld };
  let digest: string;
  if (body.runId !== undefined || body.stage !== undefined) {
    const items = [...pool.baseItems(), ...pool.journalItems(categories, filter)];
    assembled = assemblePacket(items, request, options);
    digest = poolDigest(items);
  } else {
    assembled = pool.indexForRole(body.role).assemble(request, options);
    digest = pool.digestForRole(body.role);
  }
  // Withheld items (decisions 0017 and 0018) are counted after every other gap, then the review-due ones.
  const gaps = [
    ...pool.authoredGaps(),
    ...expiryGaps(pool, withheld, assembled.audit.selectedIds, hub.now().getTime()),
  ];
  const memory = pool.authoredMemory();
  if (gaps.length > 0 || memory !== undefined) assembled = withAuthored(assembled, gaps, memory);
  // The hub's own gaps (authored memory, withheld, review due) are inputs too: they change the packet's bytes.
  const withheldInputs: PacketInputs["withheld"] = withheld.map(({ item, reason }) => [item.id, reason]);
  assembled = await keepPacket(hub, assembled, {
    pool: digest,
    contradictions: options.contradictionIds,
    withheld: withheldInputs,
    hubGaps: gaps,
  });
  const { packet, audit } = assembled;
  log.info({
    event: "context_assembled",
    project: params.project,
    role: loggedRole(body.role),
    taskChars: body.task.length,
    filtered: body.runId !== undefined || body.stage !== undefined,
    candidateCount: audit.candidateCount,
    selected: audit.selectedIds.length,
    estimatedTokens: packet.estimatedTokens,
    budgetTokens: packet.budgetTokens,
    gaps: packet.unresolvedGaps,
    packetId: audit.packetId,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
  });
  return assembled;
};

/**
 * Recalls from the project's live items, authored memory and every retained journal entry (no skills); the
 * checkout's authored-memory gaps follow the recall's own.
 */
export const recall: RouteHandler<"recall"> = async ({ params, body, hub, log }) => {
  const pool = await freshPool(hub, params.project);
  const recalled = pool.wholeIndex().recall({ ...body, project: params.project });
  const gaps = [
    ...pool.authoredGaps(),
    ...expiryGaps(
      pool,
      pool.withheldItems(),
      recalled.items.map((item) => item.id),
      hub.now().getTime(),
    ),
  ];
  const result =
    gaps.length === 0 ? recalled : { ...recalled, unresolvedGaps: [...recalled.unresolvedGaps, ...gaps] };
  log.info({
    event: "recall",
    project: params.project,
    queryChars: body.query.length,
    results: result.items.length,
    ids: result.items.map((item) => item.id),
  });
  return result;
};

/**
 * Explains an item over the project's whole pool, which holds every retained record (superseded and consumed
 * state included), so no store lookup is needed. A withheld item is explained too, with why it is withheld
 * (`withheld`, after `exists`): the operator asks why it is not served.
 */
export const explain: RouteHandler<"explain"> = async ({ params, hub }) => {
  const pool = await freshPool(hub, params.project);
  const whole = pool.wholeIndex();
  const byId = new Map<string, ContextItem>();
  const lookup = (id: string) => {
    const item = whole.get(id) ?? pool.withheldItem(id)?.item;
    if (item !== undefined) byId.set(id, item);
  };
  lookup(params.itemId);
  for (const ancestor of byId.get(params.itemId)?.provenance.derivedFrom ?? []) lookup(ancestor);
  const { id, exists, ...rest } = explainLineage(params.itemId, byId.values());
  const withheld = pool.withheldItem(params.itemId)?.reason;
  return withheld === undefined ? { id, exists, ...rest } : { id, exists, withheld, ...rest };
};
