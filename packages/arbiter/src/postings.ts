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
  /** Per slot: its distinct term ids, ascending, and its position in each term's posting. */
  private readonly slotTerms: (Int32Array | undefined)[] = [];
  private readonly slotPositions: (Int32Array | undefined)[] = [];

  /** The posting of a term, if any live item holds it. */
  get(term: string): Posting | undefined {
    const id = this.ids.get(term);
    return id === undefined ? undefined : this.lists[id];
  }

  /** The term ids a slot holds (ascending). */
  termsOf(slot: number): Int32Array | undefined {
    return this.slotTerms[slot];
  }

  /** Whether a slot holds a term. */
  holds(slot: number, term: string): boolean {
    const id = this.ids.get(term);
    const terms = this.slotTerms[slot];
    return id !== undefined && terms !== undefined && binarySearch(terms, id) >= 0;
  }

  /** Adds a slot's term frequencies, counting it in `group`. */
  add(slot: number, frequencies: ReadonlyMap<string, number>, group: number): void {
    const ids = new Int32Array(frequencies.size);
    const counts = new Int32Array(frequencies.size);
    let i = 0;
    for (const [term, count] of frequencies) {
      ids[i] = this.intern(term);
      counts[i] = count;
      i += 1;
    }
    const order = [...ids.keys()].sort((a, b) => ids[a]! - ids[b]!);
    const terms = new Int32Array(order.length);
    const positions = new Int32Array(order.length);
    order.forEach((from, to) => {
      const id = ids[from]!;
      const posting = this.lists[id]!;
      if (posting.size === posting.slots.length) grow(posting);
      posting.slots[posting.size] = slot;
      posting.tfs[posting.size] = counts[from]!;
      posting.groupDf[group]! += 1;
      terms[to] = id;
      positions[to] = posting.size;
      posting.size += 1;
    });
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
      if (moved !== slot) this.slotPositions[moved]![binarySearch(this.slotTerms[moved]!, id)] = at;
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

function binarySearch(sorted: Int32Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid]!;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
