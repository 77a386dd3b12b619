import { type ContextItem, type ContextRequest, NAMED_ROLES } from "@kxm/contract";
import { explainLineage } from "@kxm/provenance";
import { assembleFromPool, expiryGaps } from "../assembly.js";
import { packetIdOf, packetRecord, withPacketId } from "../packet-audit.js";
import type { ProjectPool } from "../project-pool.js";
import type { HubServices } from "../services.js";
import type { RouteHandler } from "./types.js";

/**
 * A project's pool with its authored memory and skills up to date with its checkout, and every item whose
 * `expiresAt` is at or before `nowMs` (the request's one clock, the hub's by default) withheld.
 */
export async function freshPool(
  hub: HubServices,
  projectId: string,
  nowMs: number = hub.now().getTime(),
): Promise<ProjectPool> {
  const pool = await hub.pool(projectId);
  await pool.refreshAuthored();
  pool.withholdExpired(nowMs);
  return pool;
}

/** The role as the log may name it: a named role, or `custom` (a custom role name is caller text). */
function loggedRole(role: string): string {
  return (NAMED_ROLES as readonly string[]).includes(role) ? role : "custom";
}

/**
 * Assembles a packet for the path's project at one clock, taken once: expiry, review dates and the stored
 * `firstServedAt` all read it, so a replay at that time rebuilds the same packet. The packet is answered with its
 * id once its audit and inputs are stored (packet-audit.ts). Logs sizes and counts, never the task.
 */
export const getContext: RouteHandler<"getContext"> = async ({ params, body, hub, log }) => {
  const started = performance.now();
  const now = hub.now();
  const pool = await freshPool(hub, params.project, now.getTime());
  const request: ContextRequest = { ...body, project: params.project };
  const { assembled: built, inputs } = assembleFromPool(pool, request, now.getTime());
  const packetId = packetIdOf(built.audit, inputs);
  const assembled = withPacketId(built, packetId);
  await hub.packets.record(packetRecord(assembled, packetId, pool.changeSeq, now, inputs));
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
  const nowMs = hub.now().getTime();
  const pool = await freshPool(hub, params.project, nowMs);
  const recalled = pool.wholeIndex().recall({ ...body, project: params.project });
  const gaps = [
    ...pool.authoredGaps(),
    ...expiryGaps(
      pool,
      pool.withheldItems(),
      recalled.items.map((item) => item.id),
      nowMs,
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

/** An item of the whole pool by id, served or withheld (explain finds both), or undefined. */
export function poolItem(pool: ProjectPool, id: string): ContextItem | undefined {
  return pool.wholeIndex().get(id) ?? pool.withheldItem(id)?.item;
}

/**
 * Explains an item over the project's whole pool, which holds every retained record (superseded and consumed
 * state included), so no store lookup is needed. A withheld item is explained too, with why it is withheld
 * (`withheld`, after `exists`): the operator asks why it is not served.
 */
export const explain: RouteHandler<"explain"> = async ({ params, hub }) => {
  const pool = await freshPool(hub, params.project);
  const byId = new Map<string, ContextItem>();
  const lookup = (id: string) => {
    const item = poolItem(pool, id);
    if (item !== undefined) byId.set(id, item);
  };
  lookup(params.itemId);
  for (const ancestor of byId.get(params.itemId)?.provenance.derivedFrom ?? []) lookup(ancestor);
  const { id, exists, ...rest } = explainLineage(params.itemId, byId.values());
  const withheld = pool.withheldItem(params.itemId)?.reason;
  return withheld === undefined ? { id, exists, ...rest } : { id, exists, withheld, ...rest };
};
