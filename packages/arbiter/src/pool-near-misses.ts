// The audit's near misses over PoolIndex's columns (docs/guides/arbiter.md, "Near misses"): the best candidates a
// packet left out, found as assemblePacket finds them, scoring the groups the walk never reached only as far as
// one of their items could still enter (MaxScore).
import type { ContextItem, ItemKind, NearMiss, NearMissReason } from "@kxm/contract";
import { averageLength, idf, indexedText, lengthNorm, termNumerator, termWeightBound } from "./bm25.js";
import { NearMissTop, nearMissesOf, type WithheldItem } from "./near-miss.js";
import { KIND_COUNT, KIND_SLOT, MARK_CONTRADICTION, type PoolColumns } from "./pool-columns.js";
import type { Scorer, WeighedTerms } from "./pool-scoring.js";
import { DEAD_GROUP, GROUP_COUNT } from "./postings.js";
import type { RankKeys } from "./rank.js";
import { tokenize } from "./tokenize.js";

/** A withheld item's tokens, as the plain scorer counts them. */
interface WithheldDocument {
  readonly length: number;
  readonly tf: ReadonlyMap<string, number>;
}

/** What {@link IndexNearMisses.find} needs of an assembly. */
export interface NearMissContext {
  readonly requested: readonly ItemKind[];
  readonly terms: readonly string[];
  /** Each term's weight (the english profile's feedback), or 1 for every term. */
  readonly weights: readonly number[] | undefined;
  /** The walk ended at the item limit. */
  readonly full: boolean;
  readonly taken: ReadonlySet<ContextItem>;
  readonly rankedContradictions: readonly (RankKeys & { slot: number })[];
  readonly touchedCount: number;
  /** Per requested kind's rank, 1 when the walk scored it. */
  readonly scored: Uint8Array;
  readonly weighed: WeighedTerms;
  readonly norms: Float64Array;
  readonly documentCount: number;
  readonly totalLength: number;
  readonly eligibleGroups: Uint8Array;
  readonly extraContradictions: readonly number[];
  readonly withheld: readonly WithheldItem[];
}

/** Relative slack on a near-miss bound: far above any rounding in a sum of a few hundred weights. */
const BOUND_SLACK = 1e-9;
/**
 * Scoring a slot alone walks its own terms: about this many posting entries' worth. The pruned path is taken when
 * the essential lists, at this cost each, hold fewer entries than the whole group.
 */
const PRUNED_ENTRY_COST = 8;

/** The near misses of an index's packets, with the tokens of withheld items kept between requests. */
export class IndexNearMisses {
  /** The tokens of withheld items, kept while the caller keeps the item: it is offered again at every request. */
  private readonly withheldDocuments = new WeakMap<ContextItem, WithheldDocument>();

  constructor(
    private readonly columns: PoolColumns,
    private readonly scorer: Scorer,
  ) {}

  /**
   * The audit's near misses (docs/guides/arbiter.md, "Near misses"), as `assemblePacket` finds them. Run after the
   * walk, before the per-request scratch is cleared: the matched items the walk scored have their scores in
   * the columns' scores; the groups it never scored (requested kinds it did not reach, then inert items, kinds not
   * requested and dead items, each as one more document of the eligible set) are scored here only as far as one of
   * their items could still enter the best {@link LIMITS.maxNearMisses}. Returns the touched count, grown by the
   * slots scored here.
   */
  find(context: NearMissContext): { nearMisses: NearMiss[]; touchedCount: number } {
    const { scores, marks, visits, touched, records, postings, groups, groupCounts, maxLength } =
      this.columns;
    const { taken, requested } = context;
    const top = new NearMissTop();
    // Eligible items the walk did not reach were never offered: after the item limit, or deferred by the early stop.
    const unreached: NearMissReason = context.full ? "item_limit" : "over_budget";
    for (const keys of context.rankedContradictions) {
      const item = records[keys.slot]!;
      if (keys.score > 0 && !taken.has(item)) {
        top.offer(item, visits[keys.slot] === 1 ? "over_budget" : unreached, keys.score);
      }
    }
    for (let i = 0; i < context.touchedCount; i += 1) {
      const slot = touched[i]!;
      if (marks[slot] === MARK_CONTRADICTION) continue;
      const score = scores[slot]!;
      if (score < top.threshold) continue;
      const item = records[slot]!;
      if (!taken.has(item)) top.offer(item, visits[slot] === 1 ? "over_budget" : unreached, score);
    }

    // Everything else is scored as one more document of the eligible set: N + 1 documents, its terms' document
    // frequencies one higher, the average length taken with its own.
    const { terms, weights, documentCount, totalLength } = context;
    const extraIdfs: number[] = [];
    const extraIds: number[] = [];
    const extraIdfsKnown: number[] = [];
    for (const [i, term] of terms.entries()) {
      const id = postings.idOf(term);
      let frequency = 0;
      if (id !== undefined) {
        for (let group = 0; group < GROUP_COUNT; group += 1) {
          if (context.eligibleGroups[group] === 1) frequency += postings.frequency(id, group);
        }
        for (const slot of context.extraContradictions) {
          if (postings.tfOf(slot, id, groups[slot]!) !== 0) frequency += 1;
        }
      }
      const termIdf = (weights?.[i] ?? 1) * idf(documentCount + 1, frequency + 1);
      extraIdfs.push(termIdf);
      if (id !== undefined) {
        extraIds.push(id);
        extraIdfsKnown.push(termIdf);
      }
    }
    for (const { item, reason } of context.withheld) {
      let document = this.withheldDocuments.get(item);
      if (document === undefined) {
        const tokens = tokenize(indexedText(item), this.columns.analysis);
        const tf = new Map<string, number>();
        for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
        document = { length: tokens.length, tf };
        this.withheldDocuments.set(item, document);
      }
      const norm = lengthNorm(
        document.length,
        averageLength(totalLength + document.length, documentCount + 1),
      );
      let score = 0;
      for (let i = 0; i < terms.length; i += 1) {
        const tf = document.tf.get(terms[i]!);
        if (tf !== undefined) score += termNumerator(extraIdfs[i]!, tf) / (tf + norm);
      }
      if (score > 0) top.offer(item, reason, score);
    }

    let touchedCount = context.touchedCount;
    // The requested kinds the walk never reached: eligible, scored with the eligible set's statistics.
    requested.forEach((kind, rank) => {
      if (context.scored[rank] === 1) return;
      touchedCount = this.group(
        KIND_SLOT[kind] * 2,
        context.weighed,
        context.norms,
        unreached,
        top,
        touchedCount,
      );
    });
    const extraWeighed: WeighedTerms = { ids: extraIds, idfs: extraIdfsKnown };
    let extraNorms: Float64Array | undefined;
    const normsOfExtras = (): Float64Array => {
      if (extraNorms === undefined) {
        extraNorms = new Float64Array(maxLength + 1);
        for (let length = 0; length <= maxLength; length += 1) {
          extraNorms[length] = lengthNorm(length, averageLength(totalLength + length, documentCount + 1));
        }
      }
      return extraNorms;
    };
    const requestedKind = new Uint8Array(KIND_COUNT);
    for (const kind of requested) requestedKind[KIND_SLOT[kind]] = 1;
    const others: { group: number; reason: NearMissReason }[] = [];
    for (let kind = 0; kind < KIND_COUNT; kind += 1) {
      if (requestedKind[kind] === 1) others.push({ group: kind * 2 + 1, reason: "inert" });
      else {
        others.push({ group: kind * 2, reason: "kind_not_requested" });
        others.push({ group: kind * 2 + 1, reason: "kind_not_requested" });
      }
    }
    others.push({ group: DEAD_GROUP, reason: "superseded" });
    for (const { group, reason } of others) {
      if (groupCounts[group] === 0) continue;
      touchedCount = this.group(group, extraWeighed, normsOfExtras(), reason, top, touchedCount);
    }
    return { nearMisses: nearMissesOf(top.candidates), touchedCount };
  }

  /**
   * Offers the items of one group to the near misses, scored with `weighed` and `norms`. Once the best
   * {@link LIMITS.maxNearMisses} are known, a term whose weight is bounded (with every term of smaller bound) below
   * the last of them cannot lift an item in on its own (MaxScore): only the items holding one of the other terms
   * are scored, one by one, when they are few; otherwise the whole group is scored term by term, as scoreGroup
   * does. Open contradictions are eligible, never near misses of another group.
   */
  private group(
    group: number,
    weighed: WeighedTerms,
    norms: Float64Array,
    reason: NearMissReason,
    top: NearMissTop,
    touchedCount: number,
  ): number {
    const { postings, marks, records, scores, touched } = this.columns;
    const { ids, idfs } = weighed;
    const threshold = top.threshold;
    if (threshold !== Number.NEGATIVE_INFINITY) {
      const present: number[] = [];
      let entries = 0;
      for (let term = 0; term < ids.length; term += 1) {
        const frequency = postings.frequency(ids[term]!, group);
        if (frequency === 0) continue;
        present.push(term);
        entries += frequency;
      }
      present.sort((a, b) => idfs[a]! - idfs[b]!);
      // The bound is a little over the true sum, so that rounding in either sum cannot skip an item that ties.
      let bound = 0;
      let cut = 0;
      while (
        cut < present.length &&
        (bound + termWeightBound(idfs[present[cut]!]!)) * (1 + BOUND_SLACK) < threshold
      ) {
        bound += termWeightBound(idfs[present[cut]!]!);
        cut += 1;
      }
      let essential = 0;
      for (let i = cut; i < present.length; i += 1) essential += postings.frequency(ids[present[i]!]!, group);
      if (essential === 0) return touchedCount;
      if (essential * PRUNED_ENTRY_COST < entries) {
        this.slots(group, weighed, norms, present.slice(cut), reason, top);
        return touchedCount;
      }
    }
    const end = this.scorer.scoreGroup(group, weighed, norms, touchedCount);
    for (let i = touchedCount; i < end; i += 1) {
      const slot = touched[i]!;
      if (marks[slot] !== MARK_CONTRADICTION) top.offer(records[slot]!, reason, scores[slot]!);
    }
    return end;
  }

  /**
   * Scores, one by one, the slots of a group that hold one of the `essential` terms (indexes into `weighed`), each
   * from its own terms summed in query order (the same floats as scoreGroup's), and offers them.
   */
  private slots(
    group: number,
    weighed: WeighedTerms,
    norms: Float64Array,
    essential: readonly number[],
    reason: NearMissReason,
    top: NearMissTop,
  ): void {
    const { postings, marks, visits, records, lengths } = this.columns;
    const { ids, idfs } = weighed;
    const slots: number[] = [];
    const list = postings.arena;
    for (const term of essential) {
      const at = postings.listAt(ids[term]!, group);
      const end = at + 1 + 2 * list[at]!;
      for (let i = at + 1; i < end; i += 2) {
        const slot = list[i]!;
        if (visits[slot] === 0 && marks[slot] !== MARK_CONTRADICTION) {
          visits[slot] = 1;
          slots.push(slot);
        }
      }
    }
    const termAt = new Map<number, number>(ids.map((id, term) => [id, term]));
    const frequencies = new Int32Array(ids.length);
    const held: number[] = [];
    const hold = (id: number, tf: number): void => {
      const term = termAt.get(id);
      if (term === undefined) return;
      frequencies[term] = tf;
      held.push(term);
    };
    for (const slot of slots) {
      visits[slot] = 0;
      held.length = 0;
      postings.forEachTerm(slot, group, hold);
      held.sort((a, b) => a - b);
      const norm = norms[lengths[slot]!]!;
      let score = 0;
      for (const term of held) {
        const tf = frequencies[term]!;
        score += termNumerator(idfs[term]!, tf) / (tf + norm);
      }
      top.offer(records[slot]!, reason, score);
    }
  }
}
