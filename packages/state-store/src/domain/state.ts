// Temporal state rules (docs/reference/behaviour.md section 5) as plain functions over items, shared by every storage engine: the
// repository reads rows, calls these, and writes what they return inside one transaction.
import { type ContextItem, compareCodeUnits, isKxmError, KxmError, LIMITS } from "@kxm/contract";
import { findSecretRanges, parseContextItem, redactRefs } from "@kxm/provenance";
import { randomId } from "../ids.js";
import { recordId, refList, sortedUnion } from "../input.js";
import { isoTime, shiftIso } from "../time.js";
import type { StateContradiction, StatePromotionInput, StateProposalInput } from "../types.js";

const PROPOSAL_ORIGINS: ReadonlySet<string> = new Set(["peer", "human"]);

/** A validated promotion request, checked before any row is read. */
export interface PromotionRequest {
  proposalId: string;
  promotedBy: string;
  evidenceRefs: string[];
  now: string;
}

/** What a promotion writes: the superseded items, the new current item and the consumed proposal. */
export interface PromotionPlan {
  state: ContextItem;
  superseded: ContextItem[];
  consumed: ContextItem;
  /** When the promotion takes effect (see {@link planPromotion}). */
  at: string;
}

/** `parseContextItem`, with a malformed item reported as a malformed proposal. */
function parseProposalItem(raw: Record<string, unknown>): ContextItem {
  try {
    return parseContextItem(raw);
  } catch (error) {
    if (isKxmError(error) && error.code === "invalid_context_item") {
      throw new KxmError("invalid_state_proposal", error.message.replace(/^context item/, "state proposal"));
    }
    throw error;
  }
}

/**
 * The proposal item: kind `state`, status `proposed`, `validFrom` = now, source ref `proposed-by:<proposer>`,
 * with the input's `expiresAt` and `reviewBy` when given (an `expiresAt` not after now is a malformed proposal).
 * Refuses 0 or more than 32 evidence references and malformed fields (`invalid_state_proposal`), an origin other
 * than peer or human, authority over the origin's ceiling (403 `context_authority_violation`), and a key that
 * looks like a secret (`invalid_request`). Evidence references are redacted by `parseContextItem`.
 */
export function buildProposal(
  input: StateProposalInput,
  now: Date,
): { item: ContextItem; proposedBy: string } {
  // A key is an identifier that URLs, packets and the wiki repeat, so it is never rewritten: one that holds a
  // secret is refused instead, without echoing it.
  if (typeof input.key === "string" && findSecretRanges(input.key).length > 0) {
    throw new KxmError("invalid_request", "the state key looks like a secret");
  }
  if (!PROPOSAL_ORIGINS.has(input.origin)) {
    throw new KxmError("invalid_state_proposal", "state proposal origin: must be peer or human");
  }
  const proposedBy = recordId(input.proposedBy, "state proposal proposedBy", "invalid_state_proposal");
  const evidenceRefs = refList(
    input.evidenceRefs,
    "state proposal evidenceRefs",
    "invalid_state_proposal",
    LIMITS.minStateEvidenceRefs,
    LIMITS.maxStateEvidenceRefs,
  );
  const raw: Record<string, unknown> = {
    id: randomId("state_"),
    kind: "state",
    project: input.project,
    summary: input.summary,
    provenance: { sourceType: input.origin, sourceRef: `proposed-by:${proposedBy}` },
    authority: input.authority,
    confidence: input.confidence,
    status: "proposed",
    stateKey: input.key,
    validFrom: isoTime(now, "now"),
    evidenceRefs,
  };
  if (input.supersedes !== undefined) raw.supersedes = input.supersedes;
  if (input.expiresAt !== undefined) raw.expiresAt = input.expiresAt;
  if (input.reviewBy !== undefined) raw.reviewBy = input.reviewBy;
  return { item: parseProposalItem(raw), proposedBy };
}

/** Checks a promotion's own fields; the proposal is checked against the stored rows by {@link checkPromotable}. */
export function promotionRequest(input: StatePromotionInput, now: Date): PromotionRequest {
  if (typeof input.proposalId !== "string" || input.proposalId.length === 0) {
    throw new KxmError("invalid_request", "proposalId: must be a non-empty string");
  }
  return {
    proposalId: input.proposalId,
    promotedBy: recordId(input.promotedBy, "promotedBy", "invalid_request"),
    // Redacted here, before the sorted union, so the stored union stays sorted and holds no repeat.
    evidenceRefs: redactRefs(
      refList(
        input.evidenceRefs,
        "promotion evidenceRefs",
        "invalid_state_proposal",
        LIMITS.minStateEvidenceRefs,
        LIMITS.maxStateEvidenceRefs,
      ),
    ),
    now: isoTime(now, "now"),
  };
}

/**
 * Refuses a promotion of a proposal that is not in the project (404 `state_proposal_not_found`, also for another
 * project's id), no longer pending (400 `state_proposal_not_promotable`; a current or superseded value too) or
 * promoted by its author (403 `state_promotion_invalid`). `proposedBy` is the stored author. Returns the proposal.
 */
export function checkPromotable(
  project: string,
  request: PromotionRequest,
  item: ContextItem | undefined,
  proposedBy: string | undefined,
): ContextItem {
  if (item === undefined || item.kind !== "state") {
    throw new KxmError(
      "state_proposal_not_found",
      `no state proposal ${request.proposalId} in project ${project}`,
    );
  }
  if (item.status !== "proposed") {
    throw new KxmError(
      "state_proposal_not_promotable",
      `state item ${request.proposalId} is ${item.status}, not a pending proposal`,
    );
  }
  if (proposedBy === undefined) {
    throw new KxmError("internal_error", `state proposal ${request.proposalId} has no review record`);
  }
  if (proposedBy === request.promotedBy) {
    throw new KxmError("state_promotion_invalid", "the author of a state proposal may not promote it");
  }
  return item;
}

/**
 * The promotion of `proposal` over the key's `current` items (docs/reference/behaviour.md section 5). It takes effect at `now`,
 * or 1 ms after the latest `validFrom` among the proposal and the current items when that is not earlier (two
 * promotions in one millisecond, or a clock that stepped back): so every validity window is non-empty and each
 * superseded item ends exactly where its successor begins. The proposal's `expiresAt` and `reviewBy` carry into
 * the new value; a proposal that expired by then is not promotable (400 `state_proposal_not_promotable`).
 */
export function planPromotion(
  proposal: ContextItem,
  current: readonly ContextItem[],
  request: PromotionRequest,
): PromotionPlan {
  let at = request.now;
  for (const item of [proposal, ...current]) {
    if (item.validFrom !== undefined && item.validFrom >= at) at = shiftIso(item.validFrom, 1);
  }
  if (proposal.expiresAt !== undefined && !(Date.parse(proposal.expiresAt) > Date.parse(at))) {
    throw new KxmError(
      "state_proposal_not_promotable",
      `state proposal ${request.proposalId} expired at ${proposal.expiresAt}`,
    );
  }
  const superseded = [...current]
    .sort((a, b) => compareCodeUnits(a.id, b.id))
    .map((item) => parseContextItem({ ...item, status: "superseded", validUntil: at }));
  const raw: Record<string, unknown> = {
    id: randomId("state_"),
    kind: "state",
    project: proposal.project,
    summary: proposal.summary,
    provenance: {
      sourceType: proposal.provenance.sourceType,
      sourceRef: `promoted-by:${request.promotedBy}`,
    },
    authority: proposal.authority,
    confidence: proposal.confidence,
    status: "current",
    stateKey: proposal.stateKey,
    validFrom: at,
    evidenceRefs: sortedUnion(proposal.evidenceRefs, request.evidenceRefs),
  };
  const supersedes = sortedUnion(
    proposal.supersedes,
    superseded.map((item) => item.id),
  );
  if (supersedes.length > 0) raw.supersedes = supersedes;
  // The proposal's expiry and review date are the value's: they are carried into the promoted item.
  if (proposal.expiresAt !== undefined) raw.expiresAt = proposal.expiresAt;
  if (proposal.reviewBy !== undefined) raw.reviewBy = proposal.reviewBy;
  return {
    state: parseContextItem(raw),
    superseded,
    consumed: parseContextItem({ ...proposal, status: "rejected", validUntil: at }),
    at,
  };
}

/** By validFrom, then id (code-unit order). */
export function byValidFromThenId(a: ContextItem, b: ContextItem): number {
  return compareCodeUnits(a.validFrom ?? "", b.validFrom ?? "") || compareCodeUnits(a.id, b.id);
}

/**
 * Keys with more than one current item or more than one pending proposal, given the project's current and
 * proposed state items. `itemIds` holds the competing items, sorted; keys come in code-unit order.
 */
export function findContradictions(pending: readonly ContextItem[]): StateContradiction[] {
  const byKey = new Map<string, { current: string[]; proposed: string[] }>();
  for (const item of pending) {
    if (item.stateKey === undefined) continue;
    const entry = byKey.get(item.stateKey) ?? { current: [], proposed: [] };
    if (item.status === "current") entry.current.push(item.id);
    if (item.status === "proposed") entry.proposed.push(item.id);
    byKey.set(item.stateKey, entry);
  }
  const out: StateContradiction[] = [];
  for (const stateKey of [...byKey.keys()].sort(compareCodeUnits)) {
    const { current, proposed } = byKey.get(stateKey)!;
    const ids = [...(current.length > 1 ? current : []), ...(proposed.length > 1 ? proposed : [])];
    if (ids.length > 0) out.push({ stateKey, itemIds: ids.sort(compareCodeUnits) });
  }
  return out;
}
