import {
  type AssembledPacket,
  type ContextItem,
  type ContextRequest,
  ITEM_KINDS,
  type ItemKind,
  KxmError,
  type RecallRequest,
  type RecallResult,
  SHARED_PROJECT,
} from "@kxm/contract";
import { averageLength, idf, indexedText, termFrequencies, termWeight } from "./bm25.js";
import { FirstFit, itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { type AssembleOptions, buildAssembly, type Selection } from "./packet.js";
import {
  authorityRank,
  compareIds,
  compareRankKeys,
  confidenceRank,
  itemTime,
  type RankKeys,
} from "./rank.js";
import { compareRecallHits, type RecallHit, recallPhrase, recallResult } from "./recall.js";
import { belongsTo, isolationViolation, resolveContextRequest, resolveRecallRequest } from "./request.js";
import { sortedInsert, sortedRemove } from "./sorted.js";
import { queryTerms, tokenize } from "./tokenize.js";

const KIND_SLOT: Readonly<Record<ItemKind, number>> = {
  evidence: 0,
  state: 1,
  episode: 2,
  knowledge: 3,
  skill: 4,
};
const KIND_COUNT = ITEM_KINDS.length;

/** What the index keeps of one item, computed once when the item enters. */
interface Entry {
  readonly slot: number;
  readonly item: ContextItem;
  readonly live: boolean;
  readonly inert: boolean;
  readonly shared: boolean;
  readonly kindSlot: number;
  readonly confidence: number;
  readonly authority: number;
  readonly time: number;
  readonly cost: number;
  readonly length: number;
  readonly terms: readonly string[];
  readonly lowerSummary: string;
  readonly lowerStateKey: string | undefined;
}

/** Live entries sharing a term, with the term's frequency in each. Order does not matter. */
interface Posting {
  readonly slots: number[];
  readonly tfs: number[];
}

/** Static order of unmatched items: confidence, authority, recency (newest first), id. */
function compareStatic(a: Entry, b: Entry): number {
  if (a.confidence !== b.confidence) return a.confidence - b.confidence;
  if (a.authority !== b.authority) return a.authority - b.authority;
  if (a.time !== b.time) return a.time > b.time ? -1 : 1;
  return compareIds(a.item.id, b.item.id);
}

function compareEntryIds(a: Entry, b: Entry): number {
  return compareIds(a.item.id, b.item.id);
}

const MARK_MATCHED = 1;
const MARK_CONTRADICTION = 2;

/**
 * An index over one project's pool (its own records and `_shared` defaults), built once and updated item by item,
 * so that serving a packet does not re-tokenize the pool. {@link PoolIndex.assemble} and {@link PoolIndex.recall}
 * give byte-identical results to {@link assemblePacket} and {@link recall} over the same items.
 *
 * Tokens, lengths and term frequencies are computed when an item enters. Per request, only the items sharing a
 * task token are scored and sorted; unmatched items are walked in a static order kept up to date on every change,
 * and the first-fit walk stops as soon as nothing left could fit.
 */
export class PoolIndex {
  private readonly entries: (Entry | undefined)[] = [];
  private readonly slotsById = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private readonly postings = new Map<string, Posting>();
  private readonly projectCounts = new Map<string, number>();
  /** Live entries per kind, split into active (index 0) and inert (index 1): counts and token totals. */
  private readonly groupCounts: number[] = new Array(KIND_COUNT * 2).fill(0);
  private readonly groupLengths: number[] = new Array(KIND_COUNT * 2).fill(0);
  /** Live, active entries in static order, per kind; [0] the project's own, [1] `_shared`. */
  private readonly staticOrder: Entry[][][] = [0, 1].map(() => ITEM_KINDS.map(() => []));
  /** Live entries that recall can return (not skills), by id. */
  private readonly recallById: Entry[] = [];
  /** How many live entries cost each number of characters: the cheapest bounds the first-fit walk. */
  private readonly costCounts = new Map<number, number>();
  private minCost = Number.POSITIVE_INFINITY;
  private deadCount = 0;
  private scores = new Float64Array(64);
  private marks = new Uint8Array(64);

  constructor(items: Iterable<ContextItem> = []) {
    for (const item of items) this.add(item);
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
    return slot === undefined ? undefined : this.entries[slot]!.item;
  }

  /** Every item, in id order. */
  items(): ContextItem[] {
    return [...this.slotsById.keys()].sort(compareIds).map((id) => this.get(id)!);
  }

  /** Adds an item; an id already present is refused (`invalid_request`). */
  add(item: ContextItem): void {
    if (this.slotsById.has(item.id)) {
      throw new KxmError("invalid_request", `the index already holds an item with id "${item.id}"`);
    }
    this.insert(item);
  }

  /** Replaces the item with the same id; an unknown id is refused (`not_found`). */
  replace(item: ContextItem): void {
    if (!this.remove(item.id))
      throw new KxmError("not_found", `the index holds no item with id "${item.id}"`);
    this.insert(item);
  }

  /** Adds the item, or replaces the one with the same id. */
  upsert(item: ContextItem): void {
    this.remove(item.id);
    this.insert(item);
  }

  /** Removes an item by id; returns whether it was there. */
  remove(id: string): boolean {
    const slot = this.slotsById.get(id);
    if (slot === undefined) return false;
    const entry = this.entries[slot]!;
    this.slotsById.delete(id);
    this.entries[slot] = undefined;
    this.freeSlots.push(slot);
    this.countProject(entry.item.project, -1);
    if (!entry.live) {
      this.deadCount -= 1;
      return true;
    }
    for (const term of entry.terms) {
      const posting = this.postings.get(term)!;
      const at = posting.slots.indexOf(slot);
      const last = posting.slots.length - 1;
      posting.slots[at] = posting.slots[last]!;
      posting.tfs[at] = posting.tfs[last]!;
      posting.slots.pop();
      posting.tfs.pop();
      if (posting.slots.length === 0) this.postings.delete(term);
    }
    const group = entry.kindSlot * 2 + (entry.inert ? 1 : 0);
    this.groupCounts[group]! -= 1;
    this.groupLengths[group]! -= entry.length;
    if (!entry.inert)
      sortedRemove(this.staticOrder[entry.shared ? 1 : 0]![entry.kindSlot]!, entry, compareStatic);
    if (entry.item.kind !== "skill") sortedRemove(this.recallById, entry, compareEntryIds);
    const left = this.costCounts.get(entry.cost)! - 1;
    if (left > 0) this.costCounts.set(entry.cost, left);
    else {
      this.costCounts.delete(entry.cost);
      if (entry.cost === this.minCost) this.minCost = Math.min(...this.costCounts.keys());
    }
    return true;
  }

  /** Assembles a packet; the same result as `assemblePacket(this.items(), request, options)`. */
  assemble(request: ContextRequest, options: AssembleOptions = {}): AssembledPacket {
    const resolved = resolveContextRequest(request);
    this.checkIsolation(resolved.project);
    const kinds = resolved.kinds;
    const kindRank = new Array<number>(KIND_COUNT).fill(-1);
    kinds.forEach((kind, i) => {
      kindRank[KIND_SLOT[kind]] = i;
    });

    // Open contradictions are eligible whatever their kind; count those the kind groups do not already hold.
    const contradictions: Entry[] = [];
    for (const id of new Set(options.contradictionIds ?? [])) {
      const slot = this.slotsById.get(id);
      const entry = slot === undefined ? undefined : this.entries[slot]!;
      if (entry?.live) contradictions.push(entry);
    }
    let documentCount = 0;
    let totalLength = 0;
    for (const kind of kinds) {
      documentCount += this.groupCounts[KIND_SLOT[kind] * 2]!;
      totalLength += this.groupLengths[KIND_SLOT[kind] * 2]!;
    }
    const marks = this.marks;
    for (const entry of contradictions) {
      marks[entry.slot] = MARK_CONTRADICTION;
      if (entry.inert || kindRank[entry.kindSlot] === -1) {
        documentCount += 1;
        totalLength += entry.length;
      }
    }
    const eligible = (entry: Entry): boolean =>
      marks[entry.slot] === MARK_CONTRADICTION || (kindRank[entry.kindSlot] !== -1 && !entry.inert);

    const terms = queryTerms(resolved.task);
    const touched = this.score(terms, documentCount, totalLength, eligible);
    const scores = this.scores;
    const rankKeys = (entry: Entry): RankKeys & { entry: Entry } => {
      const kindIndex = kindRank[entry.kindSlot]!;
      return {
        entry,
        id: entry.item.id,
        contradiction: marks[entry.slot] === MARK_CONTRADICTION,
        shared: entry.shared,
        kindIndex: kindIndex === -1 ? kinds.length : kindIndex,
        score: scores[entry.slot]!,
        confidence: entry.confidence,
        authority: entry.authority,
        time: entry.time,
      };
    };
    const matched: (RankKeys & { entry: Entry })[] = [];
    for (const entry of touched) {
      if (marks[entry.slot] !== MARK_CONTRADICTION) {
        marks[entry.slot] = MARK_MATCHED;
        matched.push(rankKeys(entry));
      }
    }
    matched.sort(compareRankKeys);
    const ranked = contradictions.map(rankKeys).sort(compareRankKeys);

    const fit = new FirstFit<Selection>(resolved.budgetTokens);
    let walked = 0;
    let stoppedEarly = false;
    const visit = (entry: Entry, contradiction: boolean): boolean => {
      if (fit.full) return false;
      if (fit.room < this.minCost) {
        stoppedEarly = true;
        return false;
      }
      walked += 1;
      fit.offer({ item: entry.item, score: scores[entry.slot]!, contradiction }, entry.cost);
      return true;
    };
    const walk = (): void => {
      for (const keys of ranked) if (!visit(keys.entry, true)) return;
      let next = 0;
      for (const shared of [false, true]) {
        while (next < matched.length && matched[next]!.shared === shared) {
          if (!visit(matched[next]!.entry, false)) return;
          next += 1;
        }
        const orders = this.staticOrder[shared ? 1 : 0]!;
        for (const kind of kinds) {
          for (const entry of orders[KIND_SLOT[kind]]!) {
            if (marks[entry.slot] !== 0) continue;
            if (!visit(entry, false)) return;
          }
        }
      }
    };
    walk();
    // Nothing left could fit: every eligible item not walked is deferred, exactly as a full walk would count it.
    if (stoppedEarly) fit.deferred += documentCount - walked;

    for (const entry of touched) {
      scores[entry.slot] = 0;
      marks[entry.slot] = 0;
    }
    for (const entry of contradictions) marks[entry.slot] = 0;

    return buildAssembly(
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
  }

  /** Recalls records; the same result as `recall(this.items(), request)`. */
  recall(request: RecallRequest): RecallResult {
    const resolved = resolveRecallRequest(request);
    this.checkIsolation(resolved.project);
    const allowed = new Array<boolean>(KIND_COUNT).fill(resolved.kinds === undefined);
    for (const kind of resolved.kinds ?? []) allowed[KIND_SLOT[kind]] = true;
    allowed[KIND_SLOT.skill] = false;

    const phrase = recallPhrase(resolved.query);
    if (phrase === "") {
      const hits: RecallHit[] = [];
      for (const entry of this.recallById) {
        if (hits.length === resolved.limit) break;
        if (allowed[entry.kindSlot]) hits.push({ item: entry.item, phrase: false, score: 0 });
      }
      return recallResult(hits, resolved.limit);
    }

    let documentCount = 0;
    let totalLength = 0;
    for (let kindSlot = 0; kindSlot < KIND_COUNT; kindSlot += 1) {
      if (!allowed[kindSlot]) continue;
      documentCount += this.groupCounts[kindSlot * 2]! + this.groupCounts[kindSlot * 2 + 1]!;
      totalLength += this.groupLengths[kindSlot * 2]! + this.groupLengths[kindSlot * 2 + 1]!;
    }
    const touched = this.score(queryTerms(resolved.query), documentCount, totalLength, (entry) =>
      Boolean(allowed[entry.kindSlot]),
    );
    const scores = this.scores;
    const hits: RecallHit[] = [];
    for (const entry of this.recallById) {
      if (!allowed[entry.kindSlot]) continue;
      const isPhrase = entry.lowerSummary.includes(phrase) || entry.lowerStateKey?.includes(phrase) === true;
      const score = scores[entry.slot]!;
      if (isPhrase || score > 0) hits.push({ item: entry.item, phrase: isPhrase, score });
    }
    for (const entry of touched) scores[entry.slot] = 0;
    return recallResult(hits.sort(compareRecallHits), resolved.limit);
  }

  /**
   * Adds each term's BM25 weight to `this.scores` for every eligible entry that holds it, term by term in query
   * order (so each entry's sum is formed in the same order as the plain scorer's). Returns the entries touched.
   */
  private score(
    terms: readonly string[],
    documentCount: number,
    totalLength: number,
    eligible: (entry: Entry) => boolean,
  ): Entry[] {
    const touched: Entry[] = [];
    const avgLength = averageLength(totalLength, documentCount);
    const scores = this.scores;
    const entries = this.entries;
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (posting === undefined) continue;
      const { slots, tfs } = posting;
      let frequency = 0;
      for (const slot of slots) if (eligible(entries[slot]!)) frequency += 1;
      if (frequency === 0) continue;
      const termIdf = idf(documentCount, frequency);
      for (let i = 0; i < slots.length; i += 1) {
        const entry = entries[slots[i]!]!;
        if (!eligible(entry)) continue;
        if (scores[entry.slot] === 0) touched.push(entry);
        scores[entry.slot]! += termWeight(termIdf, tfs[i]!, entry.length, avgLength);
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

  private insert(item: ContextItem): void {
    const slot = this.freeSlots.pop() ?? this.entries.length;
    this.ensureCapacity(slot + 1);
    const live = isLive(item);
    const tokens = live ? tokenize(indexedText(item)) : [];
    const tf = termFrequencies(tokens);
    const lowerSummary = item.summary.toLowerCase();
    const lowerStateKey = item.stateKey?.toLowerCase();
    const entry: Entry = {
      slot,
      item,
      live,
      inert: isInert(item),
      shared: item.project === SHARED_PROJECT,
      kindSlot: KIND_SLOT[item.kind],
      confidence: confidenceRank(item.confidence),
      authority: authorityRank(item.authority),
      time: itemTime(item),
      cost: itemCost(item),
      length: tokens.length,
      terms: [...tf.keys()],
      // Reuse the summary itself when lowercasing changes nothing, so most items keep one copy of their text.
      lowerSummary: live ? (lowerSummary === item.summary ? item.summary : lowerSummary) : "",
      lowerStateKey: live ? (lowerStateKey === item.stateKey ? item.stateKey : lowerStateKey) : undefined,
    };
    this.entries[slot] = entry;
    this.slotsById.set(item.id, slot);
    this.countProject(item.project, 1);
    if (!live) {
      this.deadCount += 1;
      return;
    }
    for (const [term, count] of tf) {
      let posting = this.postings.get(term);
      if (posting === undefined) {
        posting = { slots: [], tfs: [] };
        this.postings.set(term, posting);
      }
      posting.slots.push(slot);
      posting.tfs.push(count);
    }
    const group = entry.kindSlot * 2 + (entry.inert ? 1 : 0);
    this.groupCounts[group]! += 1;
    this.groupLengths[group]! += entry.length;
    if (!entry.inert)
      sortedInsert(this.staticOrder[entry.shared ? 1 : 0]![entry.kindSlot]!, entry, compareStatic);
    if (item.kind !== "skill") sortedInsert(this.recallById, entry, compareEntryIds);
    this.costCounts.set(entry.cost, (this.costCounts.get(entry.cost) ?? 0) + 1);
    if (entry.cost < this.minCost) this.minCost = entry.cost;
  }

  private ensureCapacity(size: number): void {
    if (size <= this.scores.length) return;
    let capacity = this.scores.length;
    while (capacity < size) capacity *= 2;
    const scores = new Float64Array(capacity);
    scores.set(this.scores);
    this.scores = scores;
    const marks = new Uint8Array(capacity);
    marks.set(this.marks);
    this.marks = marks;
  }
}
