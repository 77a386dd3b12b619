// One packet's assembly from a project's pool at one clock: `/context` and replay share it (decision 0016), so a
// replayed packet is built exactly as it was served.
import { assemblePacket } from "@kxm/arbiter";
import {
  type AssembledPacket,
  type ContextRequest,
  type PacketInputs,
  type PacketMemory,
  rolePolicy,
} from "@kxm/contract";
import { reviewDueGaps } from "./expiry.js";
import { poolDigest } from "./pool-digest.js";
import type { ProjectPool } from "./project-pool.js";
import { withheldGaps } from "./withheld.js";

/**
 * The gaps that follow the arbiter's and the authored memory's: `items_withheld:<reason>:<n>` for what the pool
 * withheld from this packet or recall, then `review_due:<id>` per served item past its `reviewBy` at `nowMs`.
 */
export function expiryGaps(
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

/** A packet as the pool assembles it, before its id, with every input its id hashes. */
export interface Assembly {
  readonly assembled: AssembledPacket;
  readonly inputs: PacketInputs;
}

/**
 * Assembles a packet from a pool at one clock (`nowMs`): the one function `/context` and replay share, so a
 * replayed packet is built exactly as it was served. Without `runId` and `stage` it is served from the role's
 * index; with either, the journal items are filtered to that run and stage and the plain `assemblePacket`
 * assembles base items plus those (docs/reference/behaviour.md section 9 point 3).
 */
export function assembleFromPool(pool: ProjectPool, request: ContextRequest, nowMs: number): Assembly {
  let assembled: AssembledPacket;
  const categories = rolePolicy(request.role).journalCategories;
  const filter = {
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(request.stage === undefined ? {} : { stage: request.stage }),
  };
  // What a rule below the arbiter withheld from this packet: counted in its gaps, and a near miss when it matches.
  const withheld = pool.withheldItems(categories, filter);
  const options = { contradictionIds: pool.openContradictionIds(), withheld };
  let digest: string;
  if (request.runId !== undefined || request.stage !== undefined) {
    const items = [...pool.baseItems(), ...pool.journalItems(categories, filter)];
    assembled = assemblePacket(items, request, options);
    digest = poolDigest(items);
  } else {
    assembled = pool.indexForRole(request.role).assemble(request, options);
    digest = pool.digestForRole(request.role);
  }
  // Withheld items (decisions 0017 and 0018) are counted after every other gap, then the review-due ones.
  const authoredGaps = [...pool.authoredGaps()];
  const gaps = [...authoredGaps, ...expiryGaps(pool, withheld, assembled.audit.selectedIds, nowMs)];
  const memory = pool.authoredMemory();
  if (gaps.length > 0 || memory !== undefined) assembled = withAuthored(assembled, gaps, memory);
  // The hub's own gaps (authored memory, withheld, review due) are inputs too: they change the packet's bytes.
  return {
    assembled,
    inputs: {
      pool: digest,
      contradictions: options.contradictionIds,
      withheld: withheld.map(({ item, reason }) => [item.id, reason]),
      hubGaps: gaps,
      authoredGaps,
    },
  };
}
