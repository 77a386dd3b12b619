import {
  type AssembledPacket,
  type ContextItem,
  type ContextRequest,
  compareCodeUnits,
  ITEM_KINDS,
  type ItemKind,
  KxmError,
  LIMITS,
  type NearMiss,
  type NearMissReason,
  type RecallRequest,
  type RecallResult,
  SHARED_PROJECT,
} from "@kxm/contract";
import { averageLength, idf, indexedText, lengthNorm, termNumerator, termWeightBound } from "./bm25.js";
import { FirstFit, itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { smallest } from "./heap.js";
import { checkWithheld, NearMissTop, nearMissesOf, type WithheldItem } from "./near-miss.js";
import { type AssembleOptions, buildAssembly, type Selection } from "./packet.js";
import { DEAD_GROUP, GROUP_COUNT, Postings, TF_BITS, TF_MASK } from "./postings.js";
import { authoritySortKey, compareRankKeys, confidenceSortKey, itemTime, type RankKeys } from "./rank.js";
import { type RecallHit, recallPhrase, recallResult } from "./recall.js";
import { belongsTo, isolationViolation, resolveContextRequest, resolveRecallRequest } from "./request.js";
import { sortedInsert, sortedRemove } from "./sorted.js";
import { queryTerms, tokenize } from "./tokenize.js";

/** The clock of an assembly without phases: never called. */
const noClock = (): number => 0;

const KIND_SLOT: Readonly<Record<ItemKind, number>> = {
  evidence: 0,
  state: 1,
  episode: 2,
  knowledge: 3,
  skill: 4,
};
const KIND_COUNT = ITEM_KINDS.length;
const SKILL = KIND_SLOT.skill;

const LIVE = 1;
const INERT = 2;
const SHARED = 4;

const MARK_MATCHED = 1;
const MARK_CONTRADICTION = 2;

/**
 * An index over one project's pool (its own records and `_shared` defaults), built once and updated item by item,
 * so that serving a packet does not re-tokenize the pool. {@link PoolIndex.assemble} and {@link PoolIndex.recall}
 * give byte-identical results to {@link assemblePacket} and {@link recall} over the same items.
 *
 * What each item needs for ranking is computed when it enters and kept in typed columns. Per request, only items
 * sharing a task token are scored (document frequencies are kept per kind as items change); matched items are
 * popped from a heap as the first-fit walk needs them, unmatched items are walked in a static order kept sorted,
 * and the walk stops as soon as nothing left could fit.
 */
export class PoolIndex {
  private readonly slotsById = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private readonly records: (ContextItem | undefined)[] = [];
  private readonly lowerSummaries: string[] = [];
  private readonly lowerStateKeys: (string | undefined)[] = [];
  private capacity = 0;
  private flags = new Uint8Array(0);
  private kinds = new Uint8Array(0);
  /** Document-frequency group of each slot: kind * 2, plus 1 when inert. */
  private groups = new Uint8Array(0);
  private confidences = new Uint8Array(0);
  private authorities = new Uint8Array(0);
  private lengths = new Int32Array(0);
  private costs = new Int32Array(0);
  private times = new Float64Array(0);
  private scores = new Float64Array(0);
  private marks = new Uint8Array(0);
  /** Per-request scratch: 1 for a matched slot the walk offered or deferred (its near-miss reason is over_budget). */
  private visits = new Uint8Array(0);
  /** Per-request scratch: the slots a request's terms touched, the matched slots by bucket, and their scores. */
  private touched = new Int32Array(0);
  private ranked = new Int32Array(0);
  private values = new Float64Array(0);
  /** Scratch bitset of slots for countGroup (all zero between calls), and the live slots of each group. */
  private union = new Int32Array(0);
  private readonly groupMembers: Int32Array[] = Array.from({ length: GROUP_COUNT }, () => new Int32Array(0));
  /** Per slot, PAIR_WORDS words of bits: every pair of adjacent characters of its lowercased text sets one. */
  private pairSignature = new Uint32Array(0);

  private readonly postings = new Postings();
  private readonly projectCounts = new Map<string, number>();
  /** Live items and their token totals per group (kind, active or inert). */
  private readonly groupCounts = new Float64Array(GROUP_COUNT);
  private readonly groupLengths = new Float64Array(GROUP_COUNT);
  /** Live, active slots in static order (confidence, authority, recency, id) per kind: [0] own, [1] `_shared`. */
  private readonly staticOrder: number[][][] = [0, 1].map(() => ITEM_KINDS.map(() => []));
  /** Live slots recall can return (not skills), in id order. */
  private readonly recallById: number[] = [];
  /** How many live items cost each number of characters: the cheapest bounds the first-fit walk. */
  private readonly costCounts = new Map<number, number>();
  private minCost = Number.POSITIVE_INFINITY;
  private deadCount = 0;
  /** The longest live item ever indexed, in tokens: sizes the per-request table of length norms. */
  private maxLength = 0;
  /** The length norm of every length for one average length (see normsFor), and a term's numerator per small tf. */
  private norms = new Float64Array(0);
  private normsAverage = Number.NaN;
  private normsFilled = -1;
  private readonly numerators = new Float64Array(16);
  /** The tokens of withheld items, kept while the caller keeps the item: it is offered again at every request. */
  private readonly withheldDocuments = new WeakMap<ContextItem, WithheldDocument>();

  private readonly compareStatic = (a: number, b: number): number => {
    const confidences = this.confidences;
    if (confidences[a] !== confidences[b]) return confidences[a]! - confidences[b]!;
    const authorities = this.authorities;
    if (authorities[a] !== authorities[b]) return authorities[a]! - authorities[b]!;
    const times = this.times;
    if (times[a] !== times[b]) return times[a]! > times[b]! ? -1 : 1;
    return compareCodeUnits(this.records[a]!.id, this.records[b]!.id);
  };

  private readonly compareSlotIds = (a: number, b: number): number =>
    compareCodeUnits(this.records[a]!.id, this.records[b]!.id);

  constructor(items: Iterable<ContextItem> = []) {
    // Bulk load: insert unsorted and stage the postings, then sort each ordered list once and make each postings
    // list once at its final length, instead of inserting into them item by item.
    for (const item of items) {
      if (this.slotsById.has(item.id)) throw duplicate(item.id);
      this.insert(item, true);
    }
    this.postings.flush();
    for (const orders of this.staticOrder) for (const order of orders) order.sort(this.compareStatic);
    this.recallById.sort(this.compareSlotIds);
  }

  /** How many items the index holds, live or not. */
  get size(): number {
    return this.slotsById.size;
  }

  has(id: string): boolean {
    return this.slotsById.has(id);
  }

  get(id: string): ContextItem | undefined {
    const slot = this.slotsById.get(id);
    return slot === undefined ? undefined : this.records[slot];
  }

  /** Every item, in id order. */
  items(): ContextItem[] {
    return [...this.slotsById.keys()].sort(compareCodeUnits).map((id) => this.get(id)!);
  }

  /** Adds an item; an id already present is refused (`invalid_request`). */
  add(item: ContextItem): void {
    if (this.slotsById.has(item.id)) throw duplicate(item.id);
    this.insert(item, false);
  }

  /** Replaces the item with the same id; an unknown id is refused (`not_found`). */
  replace(item: ContextItem): void {
    if (!this.remove(item.id))
      throw new KxmError("not_found", `the index holds no item with id "${item.id}"`);
    this.insert(item, false);
  }

  /** Adds the item, or replaces the one with the same id. */
  upsert(item: ContextItem): void {
    this.remove(item.id);
    this.insert(item, false);
  }

  /** Removes an item by id; returns whether it was there. */
  remove(id: string): boolean {
    const slot = this.slotsById.get(id);
    if (slot === undefined) return false;
    const item = this.records[slot]!;
    const flags = this.flags[slot]!;
    this.countProject(item.project, -1);
    if (flags & LIVE) {
      const group = this.groupOf(slot);
      this.postings.remove(slot, group);
      this.groupMembers[group]![slot >>> 5]! &= ~(1 << (slot & 31));
      this.groupCounts[group]! -= 1;
      this.groupLengths[group]! -= this.lengths[slot]!;
      if (!(flags & INERT)) sortedRemove(this.orderOf(slot), slot, this.compareStatic);
      if (this.kinds[slot] !== SKILL) sortedRemove(this.recallById, slot, this.compareSlotIds);
      this.uncountCost(this.costs[slot]!);
    } else {
      this.postings.remove(slot, DEAD_GROUP);
      this.groupMembers[DEAD_GROUP]![slot >>> 5]! &= ~(1 << (slot & 31));
      this.groupCounts[DEAD_GROUP]! -= 1;
      this.groupLengths[DEAD_GROUP]! -= this.lengths[slot]!;
      this.deadCount -= 1;
    }
    this.slotsById.delete(id);
    this.records[slot] = undefined;
    this.lowerSummaries[slot] = "";
    this.lowerStateKeys[slot] = undefined;
    this.flags[slot] = 0;
    this.freeSlots.push(slot);
    return true;
  }

  /** Assembles a packet; the same result as `assemblePacket(this.items(), request, options)`. */
  assemble(request: ContextRequest, options: AssembleOptions = {}): AssembledPacket {
    const resolved = resolveContextRequest(request);
    this.checkIsolation(resolved.project);
    const withheld = options.withheld ?? [];
    checkWithheld(withheld, resolved.project, (id) => this.slotsById.has(id));
    const requested = resolved.kinds;
    const kindRank = new Int32Array(KIND_COUNT).fill(-1);
    requested.forEach((kind, i) => {
      kindRank[KIND_SLOT[kind]] = i;
    });
    const { flags, kinds, marks, scores, costs, visits } = this;

    // The eligible set: active items of the requested kinds, plus open contradictions of any kind or status.
    let documentCount = 0;
    let totalLength = 0;
    for (const kind of requested) {
      documentCount += this.groupCounts[KIND_SLOT[kind] * 2]!;
      totalLength += this.groupLengths[KIND_SLOT[kind] * 2]!;
    }
    const contradictions: number[] = [];
    const extraContradictions: number[] = [];
    for (const id of new Set(options.contradictionIds ?? [])) {
      const slot = this.slotsById.get(id);
      if (slot === undefined || !(flags[slot]! & LIVE)) continue;
      contradictions.push(slot);
      marks[slot] = MARK_CONTRADICTION;
      if (flags[slot]! & INERT || kindRank[kinds[slot]!] === -1) {
        extraContradictions.push(slot);
        documentCount += 1;
        totalLength += this.lengths[slot]!;
      }
    }

    // Phase timings, only when the caller asks for them (a benchmark), on the clock it passes: none otherwise.
    const phases = options.phases;
    const now = options.phases === undefined ? noClock : options.now;
    let mark = phases === undefined ? 0 : now();
    const lap = (): number => {
      const at = now();
      const ms = at - mark;
      mark = at;
      return ms;
    };
    const terms = queryTerms(resolved.task);
    if (phases !== undefined) phases.tokenizeMs = lap();
    const eligibleGroups = new Uint8Array(GROUP_COUNT);
    for (const kind of requested) eligibleGroups[KIND_SLOT[kind] * 2] = 1;
    const weighed = this.weighTerms(terms, documentCount, eligibleGroups, extraContradictions);
    const norms = this.normsFor(averageLength(totalLength, documentCount));
    const touched = this.touched;
    let touchedCount = 0;
    let matchedCount = 0;
    // Contradictions are walked first, so they are scored first, each on its own terms.
    for (const slot of contradictions) {
      const score = this.scoreSlot(slot, weighed, norms);
      if (score === 0) continue;
      scores[slot] = score;
      touched[touchedCount++] = slot;
      matchedCount += 1;
    }
    const firstScoreMs = phases === undefined ? 0 : lap();
    let scoreMs = firstScoreMs;
    let sortMs = 0;

    // The other matched items are scored one kind at a time, when the walk first reaches that kind: kind is the
    // first key after contradictions, so a walk that fills the budget within the first kinds never scores the
    // rest (their matched items are only counted, at the end). A kind's matched items are split into two buckets
    // in the scratch list `ranked`, own then `_shared`; within a bucket only the score and the static keys are left
    // to order, and the walk orders a bucket only as far as it reaches into it.
    const ranked = this.ranked;
    let rankedEnd = 0;
    const bucketBounds = new Int32Array(requested.length * 4);
    const scored = new Uint8Array(requested.length);
    const scoreKind = (rank: number): void => {
      if (scored[rank] === 1) return;
      scored[rank] = 1;
      const started = phases === undefined ? 0 : now();
      const from = touchedCount;
      touchedCount = this.scoreGroup(KIND_SLOT[requested[rank]!] * 2, weighed, norms, touchedCount);
      const partitioned = phases === undefined ? 0 : now();
      let ownCount = 0;
      for (let i = from; i < touchedCount; i += 1) {
        const slot = touched[i]!;
        if (marks[slot] === MARK_CONTRADICTION) continue;
        marks[slot] = MARK_MATCHED;
        matchedCount += 1;
        if (!(flags[slot]! & SHARED)) ownCount += 1;
      }
      let own = rankedEnd;
      let shared = rankedEnd + ownCount;
      bucketBounds[rank * 4] = own;
      bucketBounds[rank * 4 + 1] = shared;
      bucketBounds[rank * 4 + 2] = shared;
      for (let i = from; i < touchedCount; i += 1) {
        const slot = touched[i]!;
        if (marks[slot] !== MARK_MATCHED) continue;
        if (flags[slot]! & SHARED) ranked[shared++] = slot;
        else ranked[own++] = slot;
      }
      bucketBounds[rank * 4 + 3] = shared;
      rankedEnd = shared;
      if (phases !== undefined) {
        const at = now();
        scoreMs += partitioned - started;
        sortMs += at - partitioned;
      }
    };
    const compareMatched = (a: number, b: number): number => {
      if (scores[a] !== scores[b]) return scores[a]! > scores[b]! ? -1 : 1;
      return this.compareStatic(a, b);
    };
    const rankKeys = (slot: number): RankKeys & { slot: number } => {
      const kindIndex = kindRank[kinds[slot]!]!;
      return {
        slot,
        id: this.records[slot]!.id,
        contradiction: true,
        shared: (flags[slot]! & SHARED) !== 0,
        kindIndex: kindIndex === -1 ? requested.length : kindIndex,
        score: scores[slot]!,
        confidence: this.confidences[slot]!,
        authority: this.authorities[slot]!,
        time: this.times[slot]!,
      };
    };
    const rankedContradictions = contradictions.map(rankKeys).sort(compareRankKeys);

    const fit = new FirstFit<Selection>(resolved.budgetTokens);
    let walked = 0;
    let stoppedEarly = false;
    const visit = (slot: number, contradiction: boolean): boolean => {
      if (fit.full) return false;
      if (fit.room < this.minCost) {
        stoppedEarly = true;
        return false;
      }
      walked += 1;
      if (scores[slot] !== 0) visits[slot] = 1;
      const cost = costs[slot]!;
      // What FirstFit.offer does with an item that does not fit, without making its selection first.
      if (cost > fit.room) fit.defer();
      else fit.offer({ item: this.records[slot]!, score: scores[slot]!, contradiction }, cost);
      return true;
    };
    // Walks the matched items of ranked[start, end) in rank order: the best `chunk` of those not yet walked are
    // brought to the front (by the score of the chunk-th best) and sorted, then the next, four times as many, and
    // so on, so a walk that stops after a few dozen items pays about one linear pass over the bucket.
    const walkBucket = (start: number, end: number): boolean => {
      let next = start;
      let stop = end;
      let chunk = FIRST_CHUNK;
      let deferredSeen = fit.deferred;
      while (next < stop) {
        const sortStart = phases === undefined ? 0 : now();
        const count =
          stop - next <= chunk ? stop - next : bringBest(ranked, next, stop, chunk, scores, this.values);
        chunk *= 4;
        const front = ranked.subarray(next, next + count).sort(compareMatched);
        next += count;
        if (phases !== undefined) sortMs += now() - sortStart;
        for (const slot of front) if (!visit(slot, false)) return false;
        if (fit.deferred === deferredSeen || next === stop) continue;
        // An item did not fit. The room only shrinks from here, so an item that does not fit now never will: each
        // is deferred where the walk would reach it. Unless the item limit could still be reached (the limit stops
        // the walk, and items after it are not deferred), count those at once and keep only the items that fit.
        deferredSeen = fit.deferred;
        const room = fit.room;
        let fitting = 0;
        for (let i = next; i < stop; i += 1) if (costs[ranked[i]!]! <= room) fitting += 1;
        if (fit.selected.length + fitting >= LIMITS.maxPacketItems) continue;
        let write = next;
        for (let i = next; i < stop; i += 1) {
          const slot = ranked[i]!;
          if (costs[slot]! <= room) ranked[write++] = slot;
          else visits[slot] = 1;
        }
        fit.defer(stop - write);
        walked += stop - write;
        deferredSeen = fit.deferred;
        stop = write;
      }
      return true;
    };
    const walk = (): void => {
      for (const { slot } of rankedContradictions) if (!visit(slot, true)) return;
      for (const shared of [0, 1]) {
        for (let rank = 0; rank < requested.length; rank += 1) {
          scoreKind(rank);
          const at = rank * 4 + shared * 2;
          if (!walkBucket(bucketBounds[at]!, bucketBounds[at + 1]!)) return;
        }
        const orders = this.staticOrder[shared]!;
        for (const kind of requested) {
          for (const slot of orders[KIND_SLOT[kind]]!) {
            if (marks[slot] !== 0) continue;
            if (!visit(slot, false)) return;
          }
        }
      }
    };
    walk();
    // Nothing left could fit: every eligible item not walked is deferred, exactly as a full walk would count it.
    if (stoppedEarly) fit.defer(documentCount - walked);
    // The audit counts the matched items of the kinds the walk never reached too.
    const countStarted = phases === undefined ? 0 : now();
    for (let rank = 0; rank < requested.length; rank += 1) {
      if (scored[rank] === 0) {
        matchedCount += this.countGroup(KIND_SLOT[requested[rank]!] * 2, weighed, contradictions);
      }
    }
    if (phases !== undefined) scoreMs += now() - countStarted;

    const nearStarted = phases === undefined ? 0 : now();
    const near = this.findNearMisses({
      requested,
      terms,
      full: fit.full,
      taken: new Set(fit.selected.map(({ item }) => item)),
      rankedContradictions,
      touchedCount,
      scored,
      weighed,
      norms,
      documentCount,
      totalLength,
      eligibleGroups,
      extraContradictions,
      withheld,
    });
    touchedCount = near.touchedCount;
    if (phases !== undefined) scoreMs += now() - nearStarted;

    for (let i = 0; i < touchedCount; i += 1) {
      const slot = touched[i]!;
      scores[slot] = 0;
      marks[slot] = 0;
      visits[slot] = 0;
    }
    for (const slot of contradictions) marks[slot] = 0;

    const assembled = buildAssembly(
      resolved,
      {
        selected: fit.selected,
        chars: fit.chars,
        deferred: fit.deferred,
        liveCount: this.slotsById.size - this.deadCount,
        excludedSuperseded: this.deadCount,
        candidateCount: documentCount,
        matchedCandidates: matchedCount,
        taskTokens: terms.length,
        nearMisses: near.nearMisses,
      },
      options,
    );
    if (phases !== undefined) {
      // The walk's time includes the kinds it scored and ordered on the way; the fill is the rest of it.
      const total = lap();
      phases.scoreMs = scoreMs;
      phases.sortMs = sortMs;
      phases.fillMs = total - (scoreMs - firstScoreMs) - sortMs;
    }
    return assembled;
  }

  /**
   * The audit's near misses (docs/guides/arbiter.md, "Near misses"), as `assemblePacket` finds them. Run after the
   * walk, before the per-request scratch is cleared: the matched items the walk scored have their scores in
   * `this.scores`; the groups it never scored (requested kinds it did not reach, then inert items, kinds not
   * requested and dead items, each as one more document of the eligible set) are scored here only as far as one of
   * their items could still enter the best {@link LIMITS.maxNearMisses}. Returns the touched count, grown by the
   * slots scored here.
   */
  private findNearMisses(context: NearMissContext): { nearMisses: NearMiss[]; touchedCount: number } {
    const { scores, marks, visits, touched, records } = this;
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
    const { terms, documentCount, totalLength } = context;
    const extraIdfs: number[] = [];
    const extraIds: number[] = [];
    const extraIdfsKnown: number[] = [];
    for (const term of terms) {
      const id = this.postings.idOf(term);
      let frequency = 0;
      if (id !== undefined) {
        for (let group = 0; group < GROUP_COUNT; group += 1) {
          if (context.eligibleGroups[group] === 1) frequency += this.postings.frequency(id, group);
        }
        for (const slot of context.extraContradictions) {
          if (this.postings.tfOf(slot, id, this.groups[slot]!) !== 0) frequency += 1;
        }
      }
      const termIdf = idf(documentCount + 1, frequency + 1);
      extraIdfs.push(termIdf);
      if (id !== undefined) {
        extraIds.push(id);
        extraIdfsKnown.push(termIdf);
      }
    }
    for (const { item, reason } of context.withheld) {
      let document = this.withheldDocuments.get(item);
      if (document === undefined) {
        const tokens = tokenize(indexedText(item));
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
      touchedCount = this.nearMissGroup(
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
        extraNorms = new Float64Array(this.maxLength + 1);
        for (let length = 0; length <= this.maxLength; length += 1) {
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
      if (this.groupCounts[group] === 0) continue;
      touchedCount = this.nearMissGroup(group, extraWeighed, normsOfExtras(), reason, top, touchedCount);
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
  private nearMissGroup(
    group: number,
    weighed: WeighedTerms,
    norms: Float64Array,
    reason: NearMissReason,
    top: NearMissTop,
    touchedCount: number,
  ): number {
    const { postings, marks, records, scores, touched } = this;
    const { ids, idfs } = weighed;
    const threshold = top.threshold;
    if (threshold !== Number.NEGATIVE_INFINITY) {
      const present: number[] = [];
      let entries = 0;
      for (let term = 0; term < ids.length; term += 1) {
        const list = postings.list(ids[term]!, group);
        if (list === undefined) continue;
        present.push(term);
        entries += list[0]!;
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
      for (let i = cut; i < present.length; i += 1) essential += postings.list(ids[present[i]!]!, group)![0]!;
      if (essential === 0) return touchedCount;
      if (essential * PRUNED_ENTRY_COST < entries) {
        this.nearMissSlots(group, weighed, norms, present.slice(cut), reason, top);
        return touchedCount;
      }
    }
    const end = this.scoreGroup(group, weighed, norms, touchedCount);
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
  private nearMissSlots(
    group: number,
    weighed: WeighedTerms,
    norms: Float64Array,
    essential: readonly number[],
    reason: NearMissReason,
    top: NearMissTop,
  ): void {
    const { postings, marks, visits, records, lengths } = this;
    const { ids, idfs } = weighed;
    const slots: number[] = [];
    for (const term of essential) {
      const list = postings.list(ids[term]!, group)!;
      const end = 1 + 2 * list[0]!;
      for (let i = 1; i < end; i += 2) {
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

  /** Recalls records; the same result as `recall(this.items(), request)`. */
  recall(request: RecallRequest): RecallResult {
    const resolved = resolveRecallRequest(request);
    this.checkIsolation(resolved.project);
    const allowed = new Uint8Array(KIND_COUNT).fill(resolved.kinds === undefined ? 1 : 0);
    for (const kind of resolved.kinds ?? []) allowed[KIND_SLOT[kind]] = 1;
    allowed[SKILL] = 0;
    const { kinds, scores, flags } = this;

    const phrase = recallPhrase(resolved.query);
    if (phrase === "") {
      const hits: RecallHit[] = [];
      for (const slot of this.recallById) {
        if (hits.length === resolved.limit) break;
        if (allowed[kinds[slot]!]) hits.push({ item: this.records[slot]!, phrase: false, score: 0 });
      }
      return recallResult(hits, resolved.limit);
    }

    let documentCount = 0;
    let totalLength = 0;
    for (let kind = 0; kind < KIND_COUNT; kind += 1) {
      if (!allowed[kind]) continue;
      documentCount += this.groupCounts[kind * 2]! + this.groupCounts[kind * 2 + 1]!;
      totalLength += this.groupLengths[kind * 2]! + this.groupLengths[kind * 2 + 1]!;
    }
    const inPool = (slot: number) => allowed[kinds[slot]!] === 1;
    const eligibleGroups = new Uint8Array(GROUP_COUNT);
    for (let kind = 0; kind < KIND_COUNT; kind += 1) {
      eligibleGroups[kind * 2] = allowed[kind]!;
      eligibleGroups[kind * 2 + 1] = allowed[kind]!;
    }
    const weighed = this.weighTerms(queryTerms(resolved.query), documentCount, eligibleGroups, []);
    const norms = this.normsFor(averageLength(totalLength, documentCount));
    let touchedCount = 0;
    for (let group = 0; group < GROUP_COUNT; group += 1) {
      if (eligibleGroups[group] === 1) touchedCount = this.scoreGroup(group, weighed, norms, touchedCount);
    }
    // Phrase hits: scan in slot order (the order items sit in memory), then keep only the best `limit`. Only the
    // slots whose pair signature holds every pair of the phrase's characters can contain it, so only those are
    // searched (a phrase of one character has no pair and searches every slot).
    const marks = this.marks;
    const pairs = this.pairSignature;
    const { words, bits } = phraseBits(phrase);
    const hitSlots: number[] = [];
    for (let slot = 0; slot < this.capacity; slot += 1) {
      if (!(flags[slot]! & LIVE) || !inPool(slot)) continue;
      let possible = true;
      const base = slot * PAIR_WORDS;
      for (let i = 0; i < words.length; i += 1) {
        if ((pairs[base + words[i]!]! & bits[i]!) !== bits[i]) {
          possible = false;
          break;
        }
      }
      const isPhrase =
        possible &&
        (this.lowerSummaries[slot]!.includes(phrase) || this.lowerStateKeys[slot]?.includes(phrase) === true);
      if (isPhrase) marks[slot] = MARK_MATCHED;
      if (isPhrase || scores[slot]! > 0) hitSlots.push(slot);
    }
    const best = smallest(hitSlots, resolved.limit, (a, b) => {
      // compareRecallHits on slots: phrase hits first, then score descending, then id.
      if (marks[a] !== marks[b]) return marks[a] === MARK_MATCHED ? -1 : 1;
      if (scores[a] !== scores[b]) return scores[a]! > scores[b]! ? -1 : 1;
      return compareCodeUnits(this.records[a]!.id, this.records[b]!.id);
    });
    const hits = best.map(
      (slot): RecallHit => ({
        item: this.records[slot]!,
        phrase: marks[slot] === MARK_MATCHED,
        score: scores[slot]!,
      }),
    );
    for (let i = 0; i < touchedCount; i += 1) scores[this.touched[i]!] = 0;
    for (const slot of hitSlots) marks[slot] = 0;
    return recallResult(hits, resolved.limit);
  }

  /**
   * The query terms some eligible slot holds, in query order, with their ids and idfs. A slot is eligible when its
   * group is marked in `eligibleGroups`, or it is one of `extra` (open contradictions outside those groups, which
   * the per-group document frequencies do not count).
   */
  private weighTerms(
    terms: readonly string[],
    documentCount: number,
    eligibleGroups: Uint8Array,
    extra: readonly number[],
  ): WeighedTerms {
    const { postings, groups } = this;
    const ids: number[] = [];
    const idfs: number[] = [];
    for (const term of terms) {
      const id = postings.idOf(term);
      if (id === undefined) continue;
      let frequency = 0;
      for (let group = 0; group < GROUP_COUNT; group += 1) {
        if (eligibleGroups[group] === 1) frequency += postings.frequency(id, group);
      }
      for (const slot of extra) if (postings.tfOf(slot, id, groups[slot]!) !== 0) frequency += 1;
      if (frequency === 0) continue;
      ids.push(id);
      idfs.push(idf(documentCount, frequency));
    }
    return { ids, idfs };
  }

  /**
   * Adds each term's BM25 weight to `this.scores` for every slot of one group that holds it, term by term in query
   * order (so each slot's sum is formed in the same order as the plain scorer's). Slots touched for the first time
   * are appended to `this.touched` from `touchedCount`; returns the new count.
   */
  private scoreGroup(
    group: number,
    weighed: WeighedTerms,
    norms: Float64Array,
    touchedCount: number,
  ): number {
    const { scores, touched, postings, lengths, numerators } = this;
    const { ids, idfs } = weighed;
    let count = touchedCount;
    for (let term = 0; term < ids.length; term += 1) {
      const list = postings.list(ids[term]!, group);
      if (list === undefined) continue;
      const termIdf = idfs[term]!;
      // termWeight(idf, tf, norm) = (idf * (tf * (k1 + 1))) / (tf + norm): the numerator depends on the term
      // frequency alone, so it is computed once per small frequency, by the same expression.
      for (let tf = 1; tf < numerators.length; tf += 1) numerators[tf] = termNumerator(termIdf, tf);
      const end = 1 + 2 * list[0]!;
      for (let i = 1; i < end; i += 2) {
        const slot = list[i]!;
        const entry = list[i + 1]!;
        // A packed entry holds the slot's length beside the frequency; a negative one (an item too long to pack)
        // holds the frequency alone.
        const tf = entry >= 0 ? entry & TF_MASK : ~entry;
        const norm = entry >= 0 ? norms[entry >>> TF_BITS]! : norms[lengths[slot]!]!;
        const numerator = tf < numerators.length ? numerators[tf]! : termNumerator(termIdf, tf);
        const score = scores[slot]!;
        if (score === 0) touched[count++] = slot;
        scores[slot] = score + numerator / (tf + norm);
      }
    }
    return count;
  }

  /** One slot's BM25 score from its own terms, summed in query order (the weight of each term as scoreGroup's). */
  private scoreSlot(slot: number, weighed: WeighedTerms, norms: Float64Array): number {
    const { ids, idfs } = weighed;
    const group = this.groups[slot]!;
    const norm = norms[this.lengths[slot]!]!;
    let score = 0;
    for (let term = 0; term < ids.length; term += 1) {
      const tf = this.postings.tfOf(slot, ids[term]!, group);
      if (tf !== 0) score += termNumerator(idfs[term]!, tf) / (tf + norm);
    }
    return score;
  }

  /**
   * How many active slots of one group hold any of the terms, contradictions left out (they are counted on their
   * own). The union of the terms' lists is built as a bitset: a short list's slots are set one by one, then each
   * word ORs in the long lists' bitsets, longest first, until it holds every slot of the group in that word (a long
   * task's common words fill most words within a few lists).
   */
  private countGroup(group: number, weighed: WeighedTerms, contradictions: readonly number[]): number {
    const { postings, union } = this;
    const long: { size: number; bits: Int32Array }[] = [];
    for (const id of weighed.ids) {
      const list = postings.list(id, group);
      if (list === undefined) continue;
      const bits = postings.bitsOf(id, group);
      if (bits !== undefined) {
        long.push({ size: list[0]!, bits });
        continue;
      }
      const end = 1 + 2 * list[0]!;
      for (let i = 1; i < end; i += 2) {
        const slot = list[i]!;
        union[slot >>> 5]! |= 1 << (slot & 31);
      }
    }
    const dense = long.sort((a, b) => b.size - a.size).map((list) => list.bits);
    const members = this.groupMembers[group]!;
    let count = 0;
    for (let word = 0; word < union.length; word += 1) {
      const all = members[word]!;
      let bits = union[word]!;
      for (let i = 0; i < dense.length && bits !== all; i += 1) bits |= dense[i]![word]!;
      union[word] = 0;
      if (bits === 0) continue;
      bits -= (bits >>> 1) & 0x55555555;
      bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
      count += Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    // A contradiction was scored on its own before the walk: it holds a term exactly when its score is positive.
    for (const slot of contradictions) {
      if (this.groups[slot] === group && this.scores[slot]! > 0) count -= 1;
    }
    return count;
  }

  /**
   * The length norm of every length up to the longest item, for one average length. Every slot of one length
   * shares its norm, and the average changes only when the eligible set does, so the table is kept between
   * requests. The same function and arguments give the same floats as the plain scorer.
   */
  private normsFor(avgLength: number): Float64Array {
    if (this.norms.length <= this.maxLength) {
      this.norms = new Float64Array(this.maxLength + 1);
      this.normsFilled = -1;
    }
    if (avgLength !== this.normsAverage) {
      this.normsAverage = avgLength;
      this.normsFilled = -1;
    }
    const norms = this.norms;
    for (let length = this.normsFilled + 1; length <= this.maxLength; length += 1)
      norms[length] = lengthNorm(length, avgLength);
    this.normsFilled = Math.max(this.normsFilled, this.maxLength);
    return norms;
  }

  private checkIsolation(project: string): void {
    for (const [other, count] of this.projectCounts) {
      if (count > 0 && !belongsTo(other, project)) throw isolationViolation(project);
    }
  }

  private countProject(project: string, delta: number): void {
    const count = (this.projectCounts.get(project) ?? 0) + delta;
    if (count === 0) this.projectCounts.delete(project);
    else this.projectCounts.set(project, count);
  }

  private groupOf(slot: number): number {
    return this.groups[slot]!;
  }

  private orderOf(slot: number): number[] {
    return this.staticOrder[this.flags[slot]! & SHARED ? 1 : 0]![this.kinds[slot]!]!;
  }

  private uncountCost(cost: number): void {
    const left = this.costCounts.get(cost)! - 1;
    if (left > 0) this.costCounts.set(cost, left);
    else {
      this.costCounts.delete(cost);
      if (cost === this.minCost) {
        let min = Number.POSITIVE_INFINITY;
        for (const key of this.costCounts.keys()) if (key < min) min = key;
        this.minCost = min;
      }
    }
  }

  /** Indexes an item; while `bulk` loading, its postings are staged and its ordered lists left for a sort. */
  private insert(item: ContextItem, bulk: boolean): void {
    const slot = this.freeSlots.pop() ?? this.records.length;
    if (slot >= this.capacity) this.grow(slot + 1);
    const live = isLive(item);
    this.records[slot] = item;
    this.slotsById.set(item.id, slot);
    this.countProject(item.project, 1);
    this.flags[slot] =
      (live ? LIVE : 0) | (isInert(item) ? INERT : 0) | (item.project === SHARED_PROJECT ? SHARED : 0);
    this.kinds[slot] = KIND_SLOT[item.kind];
    this.groups[slot] = live ? KIND_SLOT[item.kind] * 2 + (isInert(item) ? 1 : 0) : DEAD_GROUP;
    this.confidences[slot] = confidenceSortKey(item.confidence);
    this.authorities[slot] = authoritySortKey(item.authority);
    this.times[slot] = itemTime(item);
    this.costs[slot] = itemCost(item);
    const tokens = tokenize(indexedText(item));
    this.lengths[slot] = tokens.length;
    if (tokens.length > this.maxLength) this.maxLength = tokens.length;
    if (!live) {
      // A dead item is never eligible nor recalled: it is indexed in a group of its own, for the near misses.
      this.lowerSummaries[slot] = "";
      this.lowerStateKeys[slot] = undefined;
      if (bulk) this.postings.stage(slot, tokens, DEAD_GROUP);
      else this.postings.add(slot, tokens, DEAD_GROUP);
      this.groupMembers[DEAD_GROUP]![slot >>> 5]! |= 1 << (slot & 31);
      this.groupCounts[DEAD_GROUP]! += 1;
      this.groupLengths[DEAD_GROUP]! += tokens.length;
      this.deadCount += 1;
      return;
    }
    // Reuse the summary itself when lowercasing changes nothing, so most items keep one copy of their text.
    const lowerSummary = item.summary.toLowerCase();
    this.lowerSummaries[slot] = lowerSummary === item.summary ? item.summary : lowerSummary;
    this.lowerStateKeys[slot] = item.stateKey?.toLowerCase();
    const signature = this.pairSignature.subarray(slot * PAIR_WORDS, (slot + 1) * PAIR_WORDS);
    signature.fill(0);
    addPairs(signature, lowerSummary);
    if (item.stateKey !== undefined) addPairs(signature, this.lowerStateKeys[slot]!);
    const group = this.groupOf(slot);
    if (bulk) this.postings.stage(slot, tokens, group);
    else this.postings.add(slot, tokens, group);
    this.groupMembers[group]![slot >>> 5]! |= 1 << (slot & 31);
    this.groupCounts[group]! += 1;
    this.groupLengths[group]! += tokens.length;
    if (!(this.flags[slot]! & INERT)) insertInto(this.orderOf(slot), slot, this.compareStatic, !bulk);
    if (this.kinds[slot] !== SKILL) insertInto(this.recallById, slot, this.compareSlotIds, !bulk);
    const cost = this.costs[slot]!;
    this.costCounts.set(cost, (this.costCounts.get(cost) ?? 0) + 1);
    if (cost < this.minCost) this.minCost = cost;
  }

  private grow(size: number): void {
    let capacity = Math.max(64, this.capacity);
    while (capacity < size) capacity *= 2;
    const widen = <T extends Uint8Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.flags = widen(this.flags, (n) => new Uint8Array(n));
    this.kinds = widen(this.kinds, (n) => new Uint8Array(n));
    this.groups = widen(this.groups, (n) => new Uint8Array(n));
    this.confidences = widen(this.confidences, (n) => new Uint8Array(n));
    this.authorities = widen(this.authorities, (n) => new Uint8Array(n));
    this.lengths = widen(this.lengths, (n) => new Int32Array(n));
    this.costs = widen(this.costs, (n) => new Int32Array(n));
    this.times = widen(this.times, (n) => new Float64Array(n));
    this.scores = widen(this.scores, (n) => new Float64Array(n));
    this.marks = widen(this.marks, (n) => new Uint8Array(n));
    this.visits = widen(this.visits, (n) => new Uint8Array(n));
    this.touched = new Int32Array(capacity);
    this.ranked = new Int32Array(capacity);
    this.values = new Float64Array(capacity);
    this.union = new Int32Array(capacity / 32);
    for (let group = 0; group < GROUP_COUNT; group += 1) {
      const members = new Int32Array(capacity / 32);
      members.set(this.groupMembers[group]!);
      this.groupMembers[group] = members;
    }
    this.postings.reserve(capacity);
    const signatures = new Uint32Array(capacity * PAIR_WORDS);
    signatures.set(this.pairSignature);
    this.pairSignature = signatures;
    this.capacity = capacity;
  }
}

/** Words of the per-slot pair signature: 1,024 bits, so 1 KB of text sets about 40% of them. */
const PAIR_WORDS = 32;

/** The bit of a pair of adjacent UTF-16 code units: a multiplicative hash to 10 bits. */
function pairBit(first: number, second: number): number {
  return Math.imul((first << 16) | second, 0x9e3779b1) >>> 22;
}

/** Sets the bit of every pair of adjacent code units of `text` in a slot's signature. */
function addPairs(signature: Uint32Array, text: string): void {
  for (let i = 1; i < text.length; i += 1) {
    const bit = pairBit(text.charCodeAt(i - 1), text.charCodeAt(i));
    signature[bit >>> 5]! |= 1 << (bit & 31);
  }
}

/** The signature bits a text containing `phrase` must have, as (word, mask) pairs; none for a single character. */
function phraseBits(phrase: string): { words: number[]; bits: number[] } {
  const masks = new Uint32Array(PAIR_WORDS);
  addPairs(masks, phrase);
  const words: number[] = [];
  const bits: number[] = [];
  masks.forEach((mask, word) => {
    if (mask === 0) return;
    words.push(word);
    bits.push(mask | 0);
  });
  return { words, bits };
}

/** A withheld item's tokens, as the plain scorer counts them. */
interface WithheldDocument {
  readonly length: number;
  readonly tf: ReadonlyMap<string, number>;
}

/** What {@link PoolIndex.findNearMisses} needs of an assembly. */
interface NearMissContext {
  readonly requested: readonly ItemKind[];
  readonly terms: readonly string[];
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

/** The query's terms that eligible items hold, in query order: their ids in the postings and their idfs. */
interface WeighedTerms {
  readonly ids: readonly number[];
  readonly idfs: readonly number[];
}

/** The first chunk of a bucket the walk orders; each further chunk is four times the last. */
const FIRST_CHUNK = 64;

/**
 * Moves the best `count` slots of slots[start, end) by score (and any tied with the count-th best) to the front of
 * that range, in no particular order, and returns how many it moved. Every slot left behind has a lower score than
 * every slot moved, so the moved ones, sorted, come first in rank order. `values` is scratch of at least
 * end - start numbers.
 */
function bringBest(
  slots: Int32Array,
  start: number,
  end: number,
  count: number,
  scores: Float64Array,
  values: Float64Array,
): number {
  const n = end - start;
  for (let i = 0; i < n; i += 1) values[i] = scores[slots[start + i]!]!;
  const threshold = selectNth(values, n, n - count);
  let write = start;
  for (let i = start; i < end; i += 1) {
    const slot = slots[i]!;
    if (scores[slot]! >= threshold) {
      slots[i] = slots[write]!;
      slots[write] = slot;
      write += 1;
    }
  }
  return write - start;
}

/** The value that would sit at index `k` of values[0, n) sorted ascending (Hoare's selection, in place). */
function selectNth(values: Float64Array, n: number, k: number): number {
  let low = 0;
  let high = n - 1;
  while (high > low) {
    const middle = (low + high) >>> 1;
    // The median of the first, middle and last values as the pivot keeps sorted input linear.
    const a = values[low]!;
    const b = values[middle]!;
    const c = values[high]!;
    const pivot = a < b ? (b < c ? b : Math.max(a, c)) : a < c ? a : Math.max(b, c);
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i += 1;
      while (values[j]! > pivot) j -= 1;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}

function duplicate(id: string): KxmError {
  return new KxmError("invalid_request", `the index already holds an item with id "${id}"`);
}

function insertInto(
  order: number[],
  slot: number,
  compare: (a: number, b: number) => number,
  keepSorted: boolean,
) {
  if (keepSorted) sortedInsert(order, slot, compare);
  else order.push(slot);
}
