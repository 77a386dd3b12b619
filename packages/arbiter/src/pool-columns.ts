// PoolIndex's slots and columns: each item's place, what ranking reads of it kept in typed arrays, its postings,
// the per-group counts and the ordered lists, and the per-request scratch the walk, scoring and recall share.
import { type ContextItem, ITEM_KINDS, type ItemKind, KxmError, SHARED_PROJECT } from "@kxm/contract";
import { indexedText } from "./bm25.js";
import { itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { addTrigrams, SIGNATURE_WORDS } from "./phrase-signature.js";
import { DEAD_GROUP, GROUP_COUNT, Postings } from "./postings.js";
import { authoritySortKey, confidenceSortKey, itemTime } from "./rank.js";
import { belongsTo, isolationViolation } from "./request.js";
import { idComparator, type SlotCompare, staticComparator } from "./slot-order.js";
import { sortedInsert, sortedRemove } from "./sorted.js";
import { type Analysis, tokenize } from "./tokenize.js";

/** Each kind's number in the columns; a group is kind * 2, plus 1 when inert. */
export const KIND_SLOT: Readonly<Record<ItemKind, number>> = {
  evidence: 0,
  state: 1,
  episode: 2,
  knowledge: 3,
  skill: 4,
};
export const KIND_COUNT = ITEM_KINDS.length;
export const SKILL = KIND_SLOT.skill;

/** Flags of a slot. */
export const LIVE = 1;
export const INERT = 2;
export const SHARED = 4;

/** Per-request marks of a slot. */
export const MARK_MATCHED = 1;
export const MARK_CONTRADICTION = 2;

/**
 * The columns of an index. Fields are the index's own: the modules of PoolIndex (the walk, scoring, near misses,
 * recall) read and write them directly, and nothing outside the package sees them. The typed arrays are replaced
 * when they grow, so a caller holding one keeps it for one request only.
 */
export class PoolColumns {
  /** How every item's text and every request's task or query become tokens (checked by the caller). */
  constructor(readonly analysis: Analysis) {}

  readonly slotsById = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  readonly records: (ContextItem | undefined)[] = [];
  readonly lowerStateKeys: (string | undefined)[] = [];
  capacity = 0;
  flags = new Uint8Array(0);
  kinds = new Uint8Array(0);
  /** Document-frequency group of each slot: kind * 2, plus 1 when inert. */
  groups = new Uint8Array(0);
  confidences = new Uint8Array(0);
  authorities = new Uint8Array(0);
  lengths = new Int32Array(0);
  costs = new Int32Array(0);
  times = new Float64Array(0);
  scores = new Float64Array(0);
  marks = new Uint8Array(0);
  /** Per-request scratch: 1 for a matched slot the walk offered or deferred (its near-miss reason is over_budget). */
  visits = new Uint8Array(0);
  /** Per-request scratch: the slots a request's terms touched, the matched slots by bucket, and their scores. */
  touched = new Int32Array(0);
  ranked = new Int32Array(0);
  values = new Float64Array(0);
  /** Scratch bitset of slots for countGroup (all zero between calls), and the live slots of each group. */
  union = new Int32Array(0);
  readonly groupMembers: Int32Array[] = Array.from({ length: GROUP_COUNT }, () => new Int32Array(0));
  /**
   * Per slot, SIGNATURE_WORDS words of bits: every trigram of its lowercased summary and state key sets one. Word
   * by word (word w of slot s at w * capacity + s), so that testing one word of every slot reads memory in order.
   */
  phraseSignature = new Uint32Array(0);
  private readonly signatureScratch = new Uint32Array(SIGNATURE_WORDS);

  readonly postings = new Postings();
  private readonly projectCounts = new Map<string, number>();
  /** Live items and their token totals per group (kind, active or inert). */
  readonly groupCounts = new Float64Array(GROUP_COUNT);
  readonly groupLengths = new Float64Array(GROUP_COUNT);
  /** Live, active slots in static order (rank.ts's static keys) per kind: [0] own, [1] `_shared`. */
  readonly staticOrder: number[][][] = [0, 1].map(() => ITEM_KINDS.map(() => []));
  /** Live slots recall can return (not skills), in id order. */
  readonly recallById: number[] = [];
  /** How many live items cost each number of characters: the cheapest bounds the first-fit walk. */
  private readonly costCounts = new Map<number, number>();
  minCost = Number.POSITIVE_INFINITY;
  deadCount = 0;
  /** The longest live item ever indexed, in tokens: sizes the per-request table of length norms. */
  maxLength = 0;

  /** Slots by the static keys of the ranking order (slot-order.ts). */
  readonly compareStatic: SlotCompare = staticComparator(this);
  private readonly compareIds: SlotCompare = idComparator(this);

  /** The item in a slot, which must hold one. */
  record(slot: number): ContextItem {
    return this.records[slot]!;
  }

  /** Refuses a request for `project` while the index holds another project's records. */
  checkIsolation(project: string): void {
    for (const [other, count] of this.projectCounts) {
      if (count > 0 && !belongsTo(other, project)) throw isolationViolation(project);
    }
  }

  /** The ordered list an active slot sits in: its kind's, own or `_shared`. */
  orderOf(slot: number): number[] {
    return this.staticOrder[this.flags[slot]! & SHARED ? 1 : 0]![this.kinds[slot]!]!;
  }

  /**
   * Indexes an item in a free slot. While `bulk` loading, its postings are staged and its ordered lists left for
   * {@link finishBulk}.
   */
  insert(item: ContextItem, bulk: boolean): void {
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
    const tokens = tokenize(indexedText(item), this.analysis);
    this.lengths[slot] = tokens.length;
    if (tokens.length > this.maxLength) this.maxLength = tokens.length;
    if (!live) {
      // A dead item is never eligible nor recalled: it is indexed in a group of its own, for the near misses.
      this.lowerStateKeys[slot] = undefined;
      if (bulk) this.postings.stage(slot, tokens, DEAD_GROUP);
      else this.postings.add(slot, tokens, DEAD_GROUP);
      this.groupMembers[DEAD_GROUP]![slot >>> 5]! |= 1 << (slot & 31);
      this.groupCounts[DEAD_GROUP]! += 1;
      this.groupLengths[DEAD_GROUP]! += tokens.length;
      this.deadCount += 1;
      return;
    }
    // The lowercased summary is signed and dropped: keeping it cost about 1.4 KB an item, and recall lowercases
    // again only the few summaries whose signature holds its phrase.
    const lowerSummary = item.summary.toLowerCase();
    this.lowerStateKeys[slot] = item.stateKey?.toLowerCase();
    const signature = this.signatureScratch.fill(0);
    addTrigrams(signature, lowerSummary);
    if (item.stateKey !== undefined) addTrigrams(signature, this.lowerStateKeys[slot]!);
    const { phraseSignature, capacity } = this;
    for (let word = 0; word < SIGNATURE_WORDS; word += 1)
      phraseSignature[word * capacity + slot] = signature[word]!;
    const group = this.groups[slot]!;
    if (bulk) this.postings.stage(slot, tokens, group);
    else this.postings.add(slot, tokens, group);
    this.groupMembers[group]![slot >>> 5]! |= 1 << (slot & 31);
    this.groupCounts[group]! += 1;
    this.groupLengths[group]! += tokens.length;
    if (!(this.flags[slot]! & INERT)) insertInto(this.orderOf(slot), slot, this.compareStatic, !bulk);
    if (this.kinds[slot] !== SKILL) insertInto(this.recallById, slot, this.compareIds, !bulk);
    const cost = this.costs[slot]!;
    this.costCounts.set(cost, (this.costCounts.get(cost) ?? 0) + 1);
    if (cost < this.minCost) this.minCost = cost;
  }

  /** After a bulk load: makes each postings list at its final length and sorts each ordered list once. */
  finishBulk(): void {
    this.postings.flush();
    for (const orders of this.staticOrder) for (const order of orders) order.sort(this.compareStatic);
    this.recallById.sort(this.compareIds);
  }

  /** Removes the item with this id; returns whether it was there. */
  remove(id: string): boolean {
    const slot = this.slotsById.get(id);
    if (slot === undefined) return false;
    const item = this.records[slot]!;
    const flags = this.flags[slot]!;
    this.countProject(item.project, -1);
    if (flags & LIVE) {
      const group = this.groups[slot]!;
      this.postings.remove(slot, group);
      this.groupMembers[group]![slot >>> 5]! &= ~(1 << (slot & 31));
      this.groupCounts[group]! -= 1;
      this.groupLengths[group]! -= this.lengths[slot]!;
      if (!(flags & INERT)) sortedRemove(this.orderOf(slot), slot, this.compareStatic);
      if (this.kinds[slot] !== SKILL) sortedRemove(this.recallById, slot, this.compareIds);
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
    this.lowerStateKeys[slot] = undefined;
    this.flags[slot] = 0;
    this.freeSlots.push(slot);
    return true;
  }

  private countProject(project: string, delta: number): void {
    const count = (this.projectCounts.get(project) ?? 0) + delta;
    if (count === 0) this.projectCounts.delete(project);
    else this.projectCounts.set(project, count);
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
    const signatures = new Uint32Array(capacity * SIGNATURE_WORDS);
    for (let word = 0; word < SIGNATURE_WORDS; word += 1) {
      const from = word * this.capacity;
      signatures.set(this.phraseSignature.subarray(from, from + this.capacity), word * capacity);
    }
    this.phraseSignature = signatures;
    this.capacity = capacity;
  }
}

/** The error for an id the index already holds. */
export function duplicate(id: string): KxmError {
  return new KxmError("invalid_request", `the index already holds an item with id "${id}"`);
}

function insertInto(order: number[], slot: number, compare: SlotCompare, keepSorted: boolean) {
  if (keepSorted) sortedInsert(order, slot, compare);
  else order.push(slot);
}
