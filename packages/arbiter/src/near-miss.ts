import {
  type ContextItem,
  compareCodeUnits,
  KxmError,
  LIMITS,
  type NearMiss,
  type NearMissReason,
} from "@kxm/contract";
import { roundScore } from "./bm25.js";
import { itemTokens } from "./budget.js";
import { belongsTo, isolationViolation } from "./request.js";

/** Why a rule below the arbiter keeps an item out of the pool, in the order the first of several wins. */
const WITHHELD_REASONS = ["revoked", "forgotten", "expired", "check_failed"] as const;
export type WithheldReason = (typeof WITHHELD_REASONS)[number];

/** An item kept out of the pool by a rule below the arbiter: never selected, only reported as a near miss. */
export interface WithheldItem {
  readonly item: ContextItem;
  readonly reason: WithheldReason;
}

/** A candidate for the audit's near misses, with its unrounded score. */
export interface NearMissCandidate {
  readonly item: ContextItem;
  readonly reason: NearMissReason;
  readonly score: number;
}

/** The near misses' order: score descending (the unrounded float), then id by UTF-16 code unit. */
export function compareNearMisses(a: NearMissCandidate, b: NearMissCandidate): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  return compareCodeUnits(a.item.id, b.item.id);
}

/** The audit's form of the first near misses, already in order. */
export function nearMissesOf(ordered: readonly NearMissCandidate[]): NearMiss[] {
  return ordered.slice(0, LIMITS.maxNearMisses).map(({ item, reason, score }) => ({
    id: item.id,
    kind: item.kind,
    reason,
    score: roundScore(score),
    tokens: itemTokens(item),
  }));
}

/**
 * Checks the withheld items of a request for `project`: each belongs to the project (or is a `_shared` default),
 * carries a withheld reason, and no id appears twice or also in the pool (`inPool`).
 */
export function checkWithheld(
  withheld: readonly WithheldItem[],
  project: string,
  inPool: (id: string) => boolean,
): void {
  const ids = new Set<string>();
  for (const { item, reason } of withheld) {
    if (!belongsTo(item.project, project)) throw isolationViolation(project);
    if (!(WITHHELD_REASONS as readonly string[]).includes(reason)) {
      throw new KxmError("invalid_request", `withheld item "${item.id}" has an unknown reason "${reason}"`);
    }
    if (ids.has(item.id) || inPool(item.id)) {
      throw new KxmError(
        "invalid_request",
        `withheld item "${item.id}" appears twice among the pool and the withheld items`,
      );
    }
    ids.add(item.id);
  }
}

/**
 * The best {@link LIMITS.maxNearMisses} candidates offered so far, in order. {@link threshold} is the score a new
 * candidate must reach to enter once the list is full: a caller with an upper bound below it need not score one.
 */
export class NearMissTop {
  private readonly kept: NearMissCandidate[] = [];

  /** Below this score a candidate cannot enter; minus infinity until the list is full. */
  get threshold(): number {
    return this.kept.length < LIMITS.maxNearMisses
      ? Number.NEGATIVE_INFINITY
      : this.kept[this.kept.length - 1]!.score;
  }

  offer(item: ContextItem, reason: NearMissReason, score: number): void {
    if (score < this.threshold) return;
    const candidate = { item, reason, score };
    const kept = this.kept;
    let at = kept.length;
    while (at > 0 && compareNearMisses(candidate, kept[at - 1]!) < 0) at -= 1;
    if (at >= LIMITS.maxNearMisses) return;
    kept.splice(at, 0, candidate);
    if (kept.length > LIMITS.maxNearMisses) kept.pop();
  }

  get candidates(): readonly NearMissCandidate[] {
    return this.kept;
  }
}
