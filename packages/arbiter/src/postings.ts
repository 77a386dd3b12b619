import { ITEM_KINDS } from "@kxm/contract";
import { Arena } from "./arena.js";

/**
 * Document-frequency groups: one per kind, split into active (even index) and inert (odd index) items, then one for
 * every superseded or rejected item (never eligible, never recalled: indexed only to be found as a near miss).
 */
export const DEAD_GROUP = ITEM_KINDS.length * 2;
export const GROUP_COUNT = DEAD_GROUP + 1;

/**
 * A posting entry packs a slot's term frequency and its length in tokens into one integer, `length << 15 | tf`,
 * so that scoring reads the length beside the frequency instead of looking it up by slot. A frequency is at most the
 * length, so both fit when the length is below 2^15 (an item within the contract's limits holds at most about 1,400
 * tokens). The entries of a longer item hold `~tf` instead (negative), and its length is read by slot.
 */
export const TF_BITS = 15;
export const TF_MASK = (1 << TF_BITS) - 1;
const PACKED_LENGTHS = 1 << TF_BITS;
/** A list keeps a bitset once it holds 1 / BITSET_SHARE of the slots: the bitset is then no larger than the list. */
const BITSET_SHARE = 64;

/**
 * The term dictionary and postings of live items, one list per term and group, so that a request reads only the
 * lists of the groups it may use and never tests an entry's group. Terms are interned to small integers; each slot
 * records, for every term it holds, its pair's position in that term's list of its group, so removing an item costs
 * O(1) per term. A list holding at least one slot in 64 also keeps them as a bitset (bit `slot` of word
 * `slot >>> 5`), no larger than the list itself, so that counting the slots that hold any of many terms ORs words
 * instead of visiting every entry.
 *
 * Every list lives in one arena (arena.ts), and so does every slot's record of its terms. A list at offset `at` is
 * `arena[at - 1]` (its capacity in pairs), `arena[at]` (its count n), then n pairs of slot and packed entry
 * (`arena[at + 1 + 2i]` and `arena[at + 2 + 2i]`). A list that outgrows its place moves to the end of the arena at
 * twice the capacity.
 */
export class Postings {
  private readonly ids = new Map<string, number>();
  /** The lists by list key (term id * GROUP_COUNT + group); a list's capacity in pairs is its one header int. */
  private readonly lists = new Arena(1, (data, at) => 2 + 2 * data[at - 1]!, 1024 * GROUP_COUNT);
  /** Bitsets by list key: few lists are long enough to keep one. */
  private readonly bitsets = new Map<number, Int32Array>();
  /** How many live slots hold each term id, over all groups (0 for a free id). */
  private readonly totals: number[] = [];
  private readonly freeIds: number[] = [];
  /** Words of a bitset: one bit per slot the index has room for. */
  private words = 0;
  /** Kept so that an emptied term can be dropped from the dictionary. */
  private readonly termNames: (string | undefined)[] = [];
  /** Term counts of the item being added, indexed by term id; reset to zero after each add. */
  private scratchCounts: Int32Array = new Int32Array(1024);
  /**
   * Per slot, its record: at offset `at`, its count n, its n distinct term ids (`at + 1 + i`), then its pair's
   * position in each of those terms' lists of its group (`at + 1 + n + i`).
   */
  private readonly slotTerms = new Arena(0, (data, at) => 1 + 2 * data[at]!, 64);
  /** Staged slots and their groups, in pairs, in the order staged (see `stage`). */
  private staged: number[] = [];
  /** The keys of the lists that staged slots go to, in first-staged order. */
  private stagedKeys: number[] = [];
  /** By list key, how many staged slots go to that list. */
  private stagedCounts: Int32Array = new Int32Array(1024);

  /** Makes room for `capacity` slots: bitsets grow with the index's slot columns. */
  reserve(capacity: number): void {
    this.slotTerms.reserveKeys(capacity);
    const words = Math.ceil(capacity / 32);
    if (words <= this.words) return;
    this.words = words;
    for (const [key, old] of this.bitsets) {
      const bits = new Int32Array(words);
      bits.set(old);
      this.bitsets.set(key, bits);
    }
  }

  /** The id of a term, if any live item holds it. */
  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  /**
   * The arena every list lives in (see the class comment). It is replaced when it grows or is compacted, so a
   * caller reads it after the last change and keeps it for one request only.
   */
  get arena(): Int32Array {
    return this.lists.data;
  }

  /** The offset in {@link arena} of a term id's list in one group, or 0 when no live slot of that group holds it. */
  listAt(id: number, group: number): number {
    return this.lists.starts[id * GROUP_COUNT + group]!;
  }

  /** The bitset of a term id's list in one group, when the list is long enough to keep one. */
  bitsOf(id: number, group: number): Int32Array | undefined {
    return this.bitsets.get(id * GROUP_COUNT + group);
  }

  /** How many live slots of a group hold a term id. */
  frequency(id: number, group: number): number {
    const at = this.lists.starts[id * GROUP_COUNT + group]!;
    return at === 0 ? 0 : this.lists.data[at]!;
  }

  /** The term a live id stands for. */
  nameOf(id: number): string {
    const name = this.termNames[id];
    if (name === undefined) throw new Error(`term id ${id} is free`);
    return name;
  }

  /** How many term ids there are room for: every id is below it. */
  get idLimit(): number {
    return this.termNames.length;
  }

  /** Calls `visit` with each distinct term id a slot of `group` holds and its frequency there. */
  forEachTerm(slot: number, group: number, visit: (id: number, tf: number) => void): void {
    const from = this.slotTerms.starts[slot]!;
    if (from === 0) return;
    const terms = this.slotTerms.data;
    const count = terms[from]!;
    const { data: lists, starts } = this.lists;
    for (let i = from + 1; i <= from + count; i += 1) {
      const id = terms[i]!;
      const entry = lists[starts[id * GROUP_COUNT + group]! + 2 + 2 * terms[i + count]!]!;
      visit(id, entry >= 0 ? entry & TF_MASK : ~entry);
    }
  }

  /** The frequency of a term id in a slot of `group`: 0 when the slot does not hold it. */
  tfOf(slot: number, id: number, group: number): number {
    const from = this.slotTerms.starts[slot]!;
    if (from === 0) return 0;
    const terms = this.slotTerms.data;
    const at = termIndex(terms, from, id);
    if (at === -1) return 0;
    const { data: lists, starts } = this.lists;
    const entry = lists[starts[id * GROUP_COUNT + group]! + 2 + 2 * terms[at + terms[from]!]!]!;
    return entry >= 0 ? entry & TF_MASK : ~entry;
  }

  /**
   * Adds a slot's tokens to the lists of `group`. Tokens are interned and counted in one pass through a reusable
   * buffer, so no per-item map is built.
   */
  add(slot: number, tokens: readonly string[], group: number): void {
    const from = this.termsOf(slot, tokens);
    const terms = this.slotTerms.data;
    const count = terms[from]!;
    for (let i = from + 1; i <= from + count; i += 1) {
      const key = terms[i]! * GROUP_COUNT + group;
      let at = this.lists.starts[key]!;
      // A list starts with room for one pair (most terms of a small pool are held by one item) and doubles.
      if (at === 0) at = this.place(key, 1);
      else if (this.lists.data[at]! === this.lists.data[at - 1]!)
        at = this.move(key, 2 * this.lists.data[at]!);
      const lists = this.lists.data;
      const size = lists[at]!;
      lists[at + 1 + 2 * size] = slot;
      lists[at + 2 + 2 * size] = terms[i + count]!;
      lists[at] = size + 1;
      terms[i + count] = size;
      const bits = this.bitsets.get(key);
      if (bits !== undefined) bits[slot >>> 5]! |= 1 << (slot & 31);
      else if (this.wantsBitset(size + 1)) this.bitsets.set(key, this.bitsetOf(at));
    }
  }

  /**
   * Adds a slot's tokens as `add` does, but leaves its pairs out of the lists until `flush`, which places each list
   * once at its final length: loading a pool then moves no list and wastes no place. Only a bulk load into an empty
   * index calls it (every item staged, then one `flush`): until then the staged slots are in no list.
   */
  stage(slot: number, tokens: readonly string[], group: number): void {
    const from = this.termsOf(slot, tokens);
    const terms = this.slotTerms.data;
    const count = terms[from]!;
    for (let i = from + 1; i <= from + count; i += 1) {
      const key = terms[i]! * GROUP_COUNT + group;
      if (key >= this.stagedCounts.length) this.stagedCounts = growInt32(this.stagedCounts, key + 1);
      if (this.stagedCounts[key] === 0) this.stagedKeys.push(key);
      this.stagedCounts[key]! += 1;
    }
    this.staged.push(slot, group);
  }

  /** Makes the lists of every staged slot, each in the order staged, as `add` would have one slot at a time. */
  flush(): void {
    const { stagedCounts, stagedKeys, staged } = this;
    let needed = 0;
    for (const key of stagedKeys) {
      // Staging is for an empty index only: a list made here would drop the pairs of one already there.
      if (this.lists.starts[key] !== 0)
        throw new Error("Postings.flush: staged into a list that already exists");
      needed += 2 + 2 * stagedCounts[key]!;
    }
    this.lists.ensure(needed, true);
    for (const key of stagedKeys) this.place(key, stagedCounts[key]!);
    const { data: lists, starts } = this.lists;
    const terms = this.slotTerms.data;
    for (let at = 0; at < staged.length; at += 2) {
      const slot = staged[at]!;
      const group = staged[at + 1]!;
      const from = this.slotTerms.starts[slot]!;
      const count = terms[from]!;
      for (let i = from + 1; i <= from + count; i += 1) {
        const list = starts[terms[i]! * GROUP_COUNT + group]!;
        const size = lists[list]!;
        lists[list + 1 + 2 * size] = slot;
        lists[list + 2 + 2 * size] = terms[i + count]!;
        lists[list] = size + 1;
        terms[i + count] = size;
      }
    }
    for (const key of stagedKeys) {
      const at = starts[key]!;
      if (this.wantsBitset(lists[at]!)) this.bitsets.set(key, this.bitsetOf(at));
    }
    this.stagedCounts = new Int32Array(1024);
    this.stagedKeys = [];
    this.staged = [];
    this.slotTerms.fit();
  }

  /**
   * Interns a slot's tokens and records them as its slot-terms record (see slotTerms): its distinct term ids, each
   * with its packed entry in the second half, which `add` and `flush` replace with the pair's position in the
   * list. Returns the record's offset.
   */
  private termsOf(slot: number, tokens: readonly string[]): number {
    const seen: number[] = [];
    for (const token of tokens) {
      const id = this.intern(token);
      // Always the current buffer: growing from a stale copy would drop the counts of this item's earlier tokens.
      if (id >= this.scratchCounts.length) this.scratchCounts = growInt32(this.scratchCounts, id + 1);
      if (this.scratchCounts[id] === 0) seen.push(id);
      this.scratchCounts[id]! += 1;
    }
    const count = seen.length;
    this.slotTerms.reserveKeys(slot + 1);
    const from = this.slotTerms.place(slot, 1 + 2 * count);
    const terms = this.slotTerms.data;
    terms[from] = count;
    const packed = tokens.length < PACKED_LENGTHS;
    const length = tokens.length << TF_BITS;
    for (let i = 0; i < count; i += 1) {
      const id = seen[i]!;
      terms[from + 1 + i] = id;
      terms[from + 1 + count + i] = packed ? length | this.scratchCounts[id]! : ~this.scratchCounts[id]!;
      this.totals[id]! += 1;
      this.scratchCounts[id] = 0;
    }
    return from;
  }

  /** Whether a list of `size` pairs without a bitset should get one. */
  private wantsBitset(size: number): boolean {
    return size * BITSET_SHARE >= this.words * 32 && size >= 64;
  }

  /** Removes a slot of `group` from every list it is in. */
  remove(slot: number, group: number): void {
    const from = this.slotTerms.starts[slot]!;
    if (from === 0) return;
    const terms = this.slotTerms.data;
    const count = terms[from]!;
    const { data: lists, starts } = this.lists;
    for (let i = from + 1; i <= from + count; i += 1) {
      const id = terms[i]!;
      const key = id * GROUP_COUNT + group;
      const list = starts[key]!;
      const at = terms[i + count]!;
      const last = lists[list]! - 1;
      const moved = lists[list + 1 + 2 * last]!;
      lists[list + 1 + 2 * at] = moved;
      lists[list + 2 + 2 * at] = lists[list + 2 + 2 * last]!;
      lists[list] = last;
      const bits = this.bitsets.get(key);
      if (bits !== undefined) {
        // Dropped at a quarter of the size that made it, so that an item moving in and out does not churn it.
        if (last * BITSET_SHARE * 4 < this.words * 32) this.bitsets.delete(key);
        else bits[slot >>> 5]! &= ~(1 << (slot & 31));
      }
      if (moved !== slot) {
        const movedFrom = this.slotTerms.starts[moved]!;
        terms[termIndex(terms, movedFrom, id) + terms[movedFrom]!] = at;
      }
      if (last === 0) this.lists.drop(key);
      this.totals[id]! -= 1;
      if (this.totals[id] === 0) this.release(id);
    }
    this.slotTerms.drop(slot);
    this.slotTerms.settle();
    this.lists.settle();
  }

  /** Places an empty list of `capacity` pairs for a key at the end of the arena; returns its offset. */
  private place(key: number, capacity: number): number {
    const at = this.lists.place(key, 2 + 2 * capacity);
    this.lists.data[at - 1] = capacity;
    return at;
  }

  /** Moves a full list to a new place of `capacity` pairs at the end of the arena; returns its new offset. */
  private move(key: number, capacity: number): number {
    // Room first: making it may compact the arena, which moves every list.
    this.lists.ensure(2 + 2 * capacity);
    const from = this.lists.starts[key]!;
    const size = this.lists.data[from]!;
    const oldCapacity = this.lists.data[from - 1]!;
    const at = this.place(key, capacity);
    this.lists.data.copyWithin(at, from, from + 1 + 2 * size);
    this.lists.abandon(2 + 2 * oldCapacity);
    return at;
  }

  private bitsetOf(at: number): Int32Array {
    const lists = this.lists.data;
    const bits = new Int32Array(this.words);
    const end = at + 1 + 2 * lists[at]!;
    for (let i = at + 1; i < end; i += 2) {
      const slot = lists[i]!;
      bits[slot >>> 5]! |= 1 << (slot & 31);
    }
    return bits;
  }

  private intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.termNames.length;
      // A token of SLICE_MIN_LENGTH characters or more is a slice that keeps its item's whole text alive; the
      // dictionary keeps a copy of just the term instead.
      const own = term.length < SLICE_MIN_LENGTH ? term : flatCopy(term);
      this.ids.set(own, id);
      this.termNames[id] = own;
      this.totals[id] = 0;
      // A released id's lists were all emptied before it was freed, so its starts are already 0.
      this.lists.reserveKeys((id + 1) * GROUP_COUNT);
    }
    return id;
  }

  private release(id: number): void {
    this.ids.delete(this.termNames[id]!);
    this.termNames[id] = undefined;
    this.freeIds.push(id);
  }
}

/** V8 makes a substring of at least this many characters a slice that points into the string it was cut from. */
const SLICE_MIN_LENGTH = 13;

/**
 * Where a term id sits among the term ids of the slot-terms record at `from` (its index in `terms`), or -1. An item
 * holds tens of distinct terms: a scan finds one faster than keeping them sorted would cost.
 */
function termIndex(terms: Int32Array, from: number, id: number): number {
  const end = from + terms[from]!;
  for (let i = from + 1; i <= end; i += 1) if (terms[i] === id) return i;
  return -1;
}

/** A copy of a string that refers to no other string (concatenating, then slicing the result, makes one). */
function flatCopy(text: string): string {
  return ` ${text}`.slice(1);
}

function growInt32(old: Int32Array, size: number): Int32Array {
  let capacity = old.length;
  while (capacity < size) capacity *= 2;
  const next = new Int32Array(capacity);
  next.set(old);
  return next;
}
