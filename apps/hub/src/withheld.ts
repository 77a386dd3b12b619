// Items the hub keeps out of every packet and recall by a rule below the arbiter (decision 0017), and the gaps
// that count them. H3's rules (revoked, forgotten) live here; expiry and checks add theirs with the same reasons.
import {
  type ContextItem,
  type Revocation,
  type Tombstone,
  WITHHELD_REASONS,
  type WithheldReason,
} from "@kxm/contract";
import { contentSha256, type WithholdRules } from "@kxm/state-store";

/** A withheld item and its reason. */
export interface WithheldItem {
  readonly item: ContextItem;
  readonly reason: WithheldReason;
}

/** The first reason of the two in precedence order ({@link WITHHELD_REASONS}); undefined only when both are. */
function firstReason(a: WithheldReason | undefined, b: WithheldReason | undefined) {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return WITHHELD_REASONS.indexOf(a) <= WITHHELD_REASONS.indexOf(b) ? a : b;
}

/**
 * The gaps of a packet or a recall for its withheld items: `items_withheld:<reason>:<count>` in reason order,
 * only for a count above zero. They follow every other gap.
 */
export function withheldGaps(withheld: Iterable<{ readonly reason: WithheldReason }>): string[] {
  const counts = new Map<WithheldReason, number>();
  for (const { reason } of withheld) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return WITHHELD_REASONS.filter((reason) => (counts.get(reason) ?? 0) > 0).map(
    (reason) => `items_withheld:${reason}:${counts.get(reason)}`,
  );
}

/** No revocation, no tombstone: nothing is withheld by them. */
export const NO_RULES: WithholdRules = { revocations: [], tombstones: [], agentItems: new Map() };

/** The contributor a state proposal records in its source reference (`proposed-by:<actor>`). */
const PROPOSED_BY = "proposed-by:";

/**
 * A project's active revocations and tombstones as lookups: whether one item is withheld by them directly, and the
 * cascade through `provenance.derivedFrom` over a whole pool or over the part of one that a change reaches.
 */
export class WithholdMatcher {
  private readonly evidence = new Set<string>();
  private readonly sources = new Set<string>();
  private readonly prefixes: string[] = [];
  private readonly revokedIds = new Set<string>();
  private readonly agents = new Set<string>();
  private readonly forgottenIds = new Set<string>();
  private readonly forgottenHashes = new Set<string>();
  private readonly agentItems: ReadonlyMap<string, string>;
  /** True when no rule is active: nothing is withheld by revocation or forgetting. */
  readonly empty: boolean;

  constructor(rules: WithholdRules) {
    for (const revocation of rules.revocations) this.addRevocation(revocation);
    for (const tombstone of rules.tombstones) this.addTombstone(tombstone);
    this.agentItems = rules.agentItems;
    this.empty = rules.revocations.length === 0 && rules.tombstones.length === 0;
  }

  private addRevocation(revocation: Revocation): void {
    if (revocation.liftedAt !== undefined) return;
    if (revocation.target === "evidence") this.evidence.add(revocation.value);
    else if (revocation.target === "source") this.sources.add(revocation.value);
    else if (revocation.target === "source_prefix") this.prefixes.push(revocation.value);
    else if (revocation.target === "item") this.revokedIds.add(revocation.value);
    else this.agents.add(revocation.value);
  }

  private addTombstone(tombstone: Tombstone): void {
    if (tombstone.liftedAt !== undefined) return;
    this.forgottenIds.add(tombstone.itemId);
    this.forgottenHashes.add(tombstone.contentSha256);
  }

  /** Why the item itself is withheld (not counting its ancestors), or undefined. */
  direct(item: ContextItem): WithheldReason | undefined {
    if (this.empty) return undefined;
    if (this.revoked(item)) return "revoked";
    if (this.forgottenIds.has(item.id)) return "forgotten";
    if (this.forgottenHashes.size > 0 && this.forgottenHashes.has(contentSha256(item.summary)))
      return "forgotten";
    return undefined;
  }

  private revoked(item: ContextItem): boolean {
    if (this.revokedIds.has(item.id)) return true;
    for (const ref of item.evidenceRefs ?? []) if (this.evidence.has(ref)) return true;
    const source = item.provenance.sourceRef;
    if (source !== undefined) {
      if (this.sources.has(source)) return true;
      for (const prefix of this.prefixes) if (source.startsWith(prefix)) return true;
      if (source.startsWith(PROPOSED_BY) && this.agents.has(source.slice(PROPOSED_BY.length))) return true;
    }
    const contributor = this.agentItems.get(item.id);
    return contributor !== undefined && this.agents.has(contributor);
  }

  /** Why an id that is not in the pool (a forgotten, deleted item; a revoked id) withholds what derives from it. */
  absent(id: string): WithheldReason | undefined {
    if (this.revokedIds.has(id)) return "revoked";
    if (this.forgottenIds.has(id)) return "forgotten";
    return undefined;
  }

  /**
   * Every withheld item of a pool with its reason: those the rules name directly or `timed` names (expired, a
   * failed check: decision 0018), then, transitively, every item whose `provenance.derivedFrom` names a withheld
   * item or a revoked or forgotten id the pool no longer holds (a summary or a derived item of a withheld source
   * never comes back, whatever withheld the source). An item reached several ways takes the first reason in
   * precedence order. An id of `timed` that is not among `items` withholds nothing.
   *
   * An item's verdict depends only on its own record and on its ancestors', so `items` may also be part of a pool
   * that holds, transitively, every item deriving from one of them (what a pool recomputes after a change). Then
   * `outside` gives the verdict of each ancestor id that `items` leaves out, which the pool already knows; by
   * default an id outside `items` is one the pool does not hold ({@link absent}). The returned map may also hold
   * such ids. `outside` must come from these rules and `timed`: without either, nothing is withheld.
   */
  withhold(
    items: Iterable<ContextItem>,
    timed: ReadonlyMap<string, WithheldReason> = new Map(),
    outside: (id: string) => WithheldReason | undefined = (id) => this.absent(id),
  ): Map<string, WithheldReason> {
    const withheld = new Map<string, WithheldReason>();
    if (this.empty && timed.size === 0) return withheld;
    const given = new Set<string>();
    const dependents = new Map<string, ContextItem[]>();
    const queue: string[] = [];
    for (const item of items) {
      given.add(item.id);
      const reason = firstReason(this.direct(item), timed.get(item.id));
      if (reason !== undefined) {
        withheld.set(item.id, reason);
        queue.push(item.id);
      }
      for (const ancestor of item.provenance.derivedFrom ?? []) {
        const list = dependents.get(ancestor);
        if (list === undefined) dependents.set(ancestor, [item]);
        else list.push(item);
      }
    }
    for (const ancestor of dependents.keys()) {
      if (given.has(ancestor)) continue;
      const reason = outside(ancestor);
      if (reason !== undefined) {
        withheld.set(ancestor, reason);
        queue.push(ancestor);
      }
    }
    while (queue.length > 0) {
      const id = queue.pop()!;
      const reason = withheld.get(id)!;
      for (const dependent of dependents.get(id) ?? []) {
        const current = withheld.get(dependent.id);
        const next = firstReason(current, reason);
        if (next !== current) {
          withheld.set(dependent.id, next!);
          queue.push(dependent.id);
        }
      }
    }
    return withheld;
  }
}
