import {
  type AssembledPacket,
  type ContextItem,
  type ContextRequest,
  ITEM_KINDS,
  type ItemKind,
  KxmError,
  LIMITS,
  type RecallRequest,
  type RecallResult,
  SHARED_PROJECT,
} from "@kxm/contract";
import { averageLength, idf, indexedText, lengthNorm, termNumerator } from "./bm25.js";
import { FirstFit, itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { SlotHeap, smallest } from "./heap.js";
import { type AssembleOptions, buildAssembly, type Selection } from "./packet.js";
import { GROUP_COUNT, Postings } from "./postings.js";
import {
  authorityRank,
  compareIds,
  compareRankKeys,
  confidenceRank,
  itemTime,
  type RankKeys,
} from "./rank.js";
import { type RecallHit, recallPhrase, recallResult } from "./recall.js";
import { belongsTo, isolationViolation, resolveContextRequest, resolveRecallRequest } from "./request.js";
import { sortedInsert, sortedRemove } from "./sorted.js";
import { queryTerms, tokenize } from "./tokenize.js";

/** The high-resolution clock of Node and browsers alike (the package is built without either's types). */
declare const performance: { now(): number };

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
  /** Per-request scratch: the length norm of every length, and a term's BM25 numerator per small frequency. */
  private norms = new Float64Array(0);
  private readonly numerators = new Float64Array(16);

  private readonly compareStatic = (a: number, b: number): number => {
    const confidences = this.confidences;
    if (confidences[a] !== confidences[b]) return confidences[a]! - confidences[b]!;
    const authorities = this.authorities;
    if (authorities[a] !== authorities[b]) return authorities[a]! - authorities[b]!;
    const times = this.times;
    if (times[a] !== times[b]) return times[a]! > times[b]! ? -1 : 1;
    return compareIds(this.records[a]!.id, this.records[b]!.id);
  };

  private readonly compareSlotIds = (a: number, b: number): number =>
    compareIds(this.records[a]!.id, this.records[b]!.id);

  constructor(items: Iterable<ContextItem> = []) {
    // Bulk load: insert unsorted, then sort each ordered list once instead of inserting into it item by item.
    for (const item of items) {
      if (this.slotsById.has(item.id)) throw duplicate(item.id);
      this.insert(item, false);
    }
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
    return [...this.slotsById.keys()].sort(compareIds).map((id) => this.get(id)!);
  }

  /** Adds an item; an id already present is refused (`invalid_request`). */
  add(item: ContextItem): void {
    if (this.slotsById.has(item.id)) throw duplicate(item.id);
    this.insert(item, true);
  }

  /** Replaces the item with the same id; an unknown id is refused (`not_found`). */
  replace(item: ContextItem): void {
    if (!this.remove(item.id))
      throw new KxmError("not_found", `the index holds no item with id "${item.id}"`);
    this.insert(item, true);
  }

  /** Adds the item, or replaces the one with the same id. */
  upsert(item: ContextItem): void {
    this.remove(item.id);
    this.insert(item, true);
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
      this.groupCounts[group]! -= 1;
      this.groupLengths[group]! -= this.lengths[slot]!;
      if (!(flags & INERT)) sortedRemove(this.orderOf(slot), slot, this.compareStatic);
      if (this.kinds[slot] !== SKILL) sortedRemove(this.recallById, slot, this.compareSlotIds);
      this.uncountCost(this.costs[slot]!);
    } else {
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
    const requested = resolved.kinds;
    const kindRank = new Int32Array(KIND_COUNT).fill(-1);
    requested.forEach((kind, i) => {
      kindRank[KIND_SLOT[kind]] = i;
    });
    const { flags, kinds, marks, scores } = this;

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

    // Phase timings, only when the caller asks for them (a benchmark): no clock is read otherwise.
    const phases = options.phases;
    let mark = phases === undefined ? 0 : performance.now();
    const lap = (): number => {
      const at = performance.now();
      const ms = at - mark;
      mark = at;
      return ms;
    };
    const terms = queryTerms(resolved.task);
    if (phases !== undefined) phases.tokenizeMs = lap();
    const eligibleGroups = new Uint8Array(GROUP_COUNT);
    for (const kind of requested) eligibleGroups[KIND_SLOT[kind] * 2] = 1;
    const touched = this.score(terms, documentCount, totalLength, eligibleGroups, extraContradictions);
    if (phases !== undefined) phases.scoreMs = lap();
    let heapMs = 0;

    const matched: number[][] = [[], []];
    for (const slot of touched) {
      if (marks[slot] === MARK_CONTRADICTION) continue;
      marks[slot] = MARK_MATCHED;
      matched[flags[slot]! & SHARED ? 1 : 0]!.push(slot);
    }
    const compareMatched = (a: number, b: number): number => {
      const kindA = kindRank[kinds[a]!]!;
      const kindB = kindRank[kinds[b]!]!;
      if (kindA !== kindB) return kindA - kindB;
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
    const partitionMs = phases === undefined ? 0 : lap();

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
      const cost = this.costs[slot]!;
      // What FirstFit.offer does with an item that does not fit, without making its selection first.
      if (cost > fit.room) fit.deferred += 1;
      else fit.offer({ item: this.records[slot]!, score: scores[slot]!, contradiction }, cost);
      return true;
    };
    const walk = (): void => {
      for (const { slot } of rankedContradictions) if (!visit(slot, true)) return;
      for (const shared of [0, 1]) {
        const heapStart = phases === undefined ? 0 : performance.now();
        const heap = new SlotHeap(matched[shared]!, compareMatched);
        if (phases !== undefined) heapMs += performance.now() - heapStart;
        let bulk = true;
        while (heap.size > 0) {
          const deferred = fit.deferred;
          if (!visit(heap.pop(), false)) return;
          if (!bulk || fit.deferred === deferred || heap.size === 0) continue;
          // An item did not fit. The room only shrinks from here, so a matched item that does not fit now never
          // will: each is deferred where the walk would reach it. Unless the item limit could still be reached
          // (the limit stops the walk, and items after it are not deferred), count those at once and walk only
          // the items that fit, in rank order, instead of popping every one of them off the heap.
          const room = fit.room;
          const rest = heap.toArray();
          const fitting = rest.filter((slot) => this.costs[slot]! <= room);
          if (fit.selected.length + fitting.length >= LIMITS.maxPacketItems) {
            bulk = false;
            continue;
          }
          fit.deferred += rest.length - fitting.length;
          walked += rest.length - fitting.length;
          fitting.sort(compareMatched);
          for (const slot of fitting) if (!visit(slot, false)) return;
          break;
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
    if (stoppedEarly) fit.deferred += documentCount - walked;

    for (const slot of touched) {
      scores[slot] = 0;
      marks[slot] = 0;
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
        matchedCandidates: touched.length,
        taskTokens: terms.length,
      },
      options,
    );
    if (phases !== undefined) {
      phases.sortMs = partitionMs + heapMs;
      phases.fillMs = lap() - heapMs;
    }
    return assembled;
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
    const touched = this.score(queryTerms(resolved.query), documentCount, totalLength, eligibleGroups, []);
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
      return compareIds(this.records[a]!.id, this.records[b]!.id);
    });
    const hits = best.map(
      (slot): RecallHit => ({
        item: this.records[slot]!,
        phrase: marks[slot] === MARK_MATCHED,
        score: scores[slot]!,
      }),
    );
    for (const slot of touched) scores[slot] = 0;
    for (const slot of hitSlots) marks[slot] = 0;
    return recallResult(hits, resolved.limit);
  }

  /**
   * Adds each term's BM25 weight to `this.scores` for every eligible slot that holds it, term by term in query
   * order (so each slot's sum is formed in the same order as the plain scorer's). A slot is eligible when its
   * group is marked in `eligibleGroups` or it is an open contradiction; `extra` lists the contradictions outside
   * those groups, which the per-group document frequencies do not count. Returns the slots touched.
   */
  private score(
    terms: readonly string[],
    documentCount: number,
    totalLength: number,
    eligibleGroups: Uint8Array,
    extra: readonly number[],
  ): number[] {
    const touched: number[] = [];
    const avgLength = averageLength(totalLength, documentCount);
    const { scores, lengths, groups, marks } = this;
    // Every slot of one length shares its norm: computed once per request for every length up front, so the
    // loop below has no branch for it. The same function and arguments give the same floats as the plain scorer.
    if (this.norms.length <= this.maxLength) this.norms = new Float64Array(this.maxLength + 1);
    const norms = this.norms;
    for (let length = 0; length <= this.maxLength; length += 1) norms[length] = lengthNorm(length, avgLength);
    // Only contradictions outside the eligible groups need the mark check; without any, the group check decides.
    const checkMarks = extra.length > 0;
    const numerators = this.numerators;
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (posting === undefined) continue;
      let frequency = 0;
      for (let group = 0; group < GROUP_COUNT; group += 1) {
        if (eligibleGroups[group] === 1) frequency += posting.groupDf[group]!;
      }
      for (const slot of extra) if (this.postings.holds(slot, term)) frequency += 1;
      if (frequency === 0) continue;
      const termIdf = idf(documentCount, frequency);
      // termWeight(idf, tf, norm) = (idf * (tf * (k1 + 1))) / (tf + norm): the numerator depends on the term
      // frequency alone, so it is computed once per small frequency, by the same expression.
      for (let tf = 1; tf < numerators.length; tf += 1) numerators[tf] = termNumerator(termIdf, tf);
      const { slots, tfs, size } = posting;
      for (let i = 0; i < size; i += 1) {
        const slot = slots[i]!;
        if (eligibleGroups[groups[slot]!] !== 1 && (!checkMarks || marks[slot] !== MARK_CONTRADICTION))
          continue;
        const tf = tfs[i]!;
        const numerator = tf < numerators.length ? numerators[tf]! : termNumerator(termIdf, tf);
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += numerator / (tf + norms[lengths[slot]!]!);
      }
    }
    return touched;
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

  private insert(item: ContextItem, keepSorted: boolean): void {
    const slot = this.freeSlots.pop() ?? this.records.length;
    if (slot >= this.capacity) this.grow(slot + 1);
    const live = isLive(item);
    this.records[slot] = item;
    this.slotsById.set(item.id, slot);
    this.countProject(item.project, 1);
    this.flags[slot] =
      (live ? LIVE : 0) | (isInert(item) ? INERT : 0) | (item.project === SHARED_PROJECT ? SHARED : 0);
    this.kinds[slot] = KIND_SLOT[item.kind];
    this.groups[slot] = KIND_SLOT[item.kind] * 2 + (isInert(item) ? 1 : 0);
    this.confidences[slot] = confidenceRank(item.confidence);
    this.authorities[slot] = authorityRank(item.authority);
    this.times[slot] = itemTime(item);
    this.costs[slot] = itemCost(item);
    if (!live) {
      this.lengths[slot] = 0;
      this.lowerSummaries[slot] = "";
      this.lowerStateKeys[slot] = undefined;
      this.deadCount += 1;
      return;
    }
    const tokens = tokenize(indexedText(item));
    this.lengths[slot] = tokens.length;
    if (tokens.length > this.maxLength) this.maxLength = tokens.length;
    // Reuse the summary itself when lowercasing changes nothing, so most items keep one copy of their text.
    const lowerSummary = item.summary.toLowerCase();
    this.lowerSummaries[slot] = lowerSummary === item.summary ? item.summary : lowerSummary;
    this.lowerStateKeys[slot] = item.stateKey?.toLowerCase();
    const signature = this.pairSignature.subarray(slot * PAIR_WORDS, (slot + 1) * PAIR_WORDS);
    signature.fill(0);
    addPairs(signature, lowerSummary);
    if (item.stateKey !== undefined) addPairs(signature, this.lowerStateKeys[slot]!);
    const group = this.groupOf(slot);
    this.postings.add(slot, tokens, group);
    this.groupCounts[group]! += 1;
    this.groupLengths[group]! += tokens.length;
    if (!(this.flags[slot]! & INERT)) insertInto(this.orderOf(slot), slot, this.compareStatic, keepSorted);
    if (this.kinds[slot] !== SKILL) insertInto(this.recallById, slot, this.compareSlotIds, keepSorted);
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
