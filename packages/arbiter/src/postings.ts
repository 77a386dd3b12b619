import { ITEM_KINDS } from "@kxm/contract";

/** Document-frequency groups: one per kind, split into active (even index) and inert (odd index) items. */
export const GROUP_COUNT = ITEM_KINDS.length * 2;

/** Live slots holding one term, with the term's frequency in each, and how many of them fall in each group. */
export interface Posting {
  slots: Int32Array;
  tfs: Int32Array;
  size: number;
  readonly groupDf: Int32Array;
}

/**
 * The term dictionary and postings of live items. Terms are interned to small integers; each slot records, for
 * every term it holds, its position in that term's posting, so removing an item costs O(1) per term.
 */
export class Postings {
  private readonly ids = new Map<string, number>();
  private readonly lists: (Posting | undefined)[] = [];
  private readonly freeIds: number[] = [];
  /** Kept so that an emptied posting can be dropped from the dictionary. */
  private readonly termNames: (string | undefined)[] = [];
  /** Term counts of the item being added, indexed by term id; reset to zero after each add. */
  private scratchCounts: Int32Array = new Int32Array(1024);
  /** Per slot: its distinct term ids, and its position in each of those terms' postings. */
  private readonly slotTerms: (Int32Array | undefined)[] = [];
  private readonly slotPositions: (Int32Array | undefined)[] = [];

  /** The posting of a term, if any live item holds it. */
  get(term: string): Posting | undefined {
    const id = this.ids.get(term);
    return id === undefined ? undefined : this.lists[id];
  }

  /** Whether a slot holds a term. */
  holds(slot: number, term: string): boolean {
    const id = this.ids.get(term);
    const terms = this.slotTerms[slot];
    return id !== undefined && terms !== undefined && terms.indexOf(id) !== -1;
  }

  /**
   * Adds a slot's tokens, counting it in `group`. Tokens are interned and counted in one pass through a reusable
   * buffer, so no per-item map is built.
   */
  add(slot: number, tokens: readonly string[], group: number): void {
    const seen: number[] = [];
    for (const token of tokens) {
      const id = this.intern(token);
      // Always the current buffer: growing from a stale copy would drop the counts of this item's earlier tokens.
      if (id >= this.scratchCounts.length) this.scratchCounts = growInt32(this.scratchCounts, id + 1);
      if (this.scratchCounts[id] === 0) seen.push(id);
      this.scratchCounts[id]! += 1;
    }
    const terms = Int32Array.from(seen);
    const positions = new Int32Array(seen.length);
    for (let i = 0; i < seen.length; i += 1) {
      const id = seen[i]!;
      const posting = this.lists[id]!;
      if (posting.size === posting.slots.length) grow(posting);
      posting.slots[posting.size] = slot;
      posting.tfs[posting.size] = this.scratchCounts[id]!;
      posting.groupDf[group]! += 1;
      positions[i] = posting.size;
      posting.size += 1;
      this.scratchCounts[id] = 0;
    }
    this.slotTerms[slot] = terms;
    this.slotPositions[slot] = positions;
  }

  /** Removes a slot from every posting it is in. */
  remove(slot: number, group: number): void {
    const terms = this.slotTerms[slot];
    const positions = this.slotPositions[slot];
    if (terms === undefined || positions === undefined) return;
    for (let i = 0; i < terms.length; i += 1) {
      const id = terms[i]!;
      const posting = this.lists[id]!;
      const at = positions[i]!;
      const last = posting.size - 1;
      const moved = posting.slots[last]!;
      posting.slots[at] = moved;
      posting.tfs[at] = posting.tfs[last]!;
      posting.size = last;
      posting.groupDf[group]! -= 1;
      // An item holds tens of distinct terms: a scan finds this one faster than keeping them sorted would cost.
      if (moved !== slot) this.slotPositions[moved]![this.slotTerms[moved]!.indexOf(id)] = at;
      if (posting.size === 0) this.release(id);
    }
    this.slotTerms[slot] = undefined;
    this.slotPositions[slot] = undefined;
  }

  private intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.lists.length;
      this.ids.set(term, id);
      this.lists[id] = {
        slots: new Int32Array(4),
        tfs: new Int32Array(4),
        size: 0,
        groupDf: new Int32Array(GROUP_COUNT),
      };
      this.termNames[id] = term;
    }
    return id;
  }

  private release(id: number): void {
    this.ids.delete(this.termNames[id]!);
    this.termNames[id] = undefined;
    this.lists[id] = undefined;
    this.freeIds.push(id);
  }
}

function grow(posting: Posting): void {
  const slots = new Int32Array(posting.slots.length * 2);
  slots.set(posting.slots);
  posting.slots = slots;
  const tfs = new Int32Array(posting.tfs.length * 2);
  tfs.set(posting.tfs);
  posting.tfs = tfs;
}

function growInt32(old: Int32Array, size: number): Int32Array {
  let capacity = old.length;
  while (capacity < size) capacity *= 2;
  const next = new Int32Array(capacity);
  next.set(old);
  return next;
}
