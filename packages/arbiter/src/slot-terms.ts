// Each slot's distinct term ids and its pairs' positions in their lists, for Postings, in one Int32Array: a typed
// array per item cost each its headers (about 190 bytes an item), as one per postings list did (postings.ts).

import { grownLength } from "./arena.js";

/**
 * The term records of an index's slots. A slot's record at offset `at` is `arena[at]` (its count n), its n term ids
 * (`arena[at + 1 + i]`), then the position of its pair in each term's list of its group (`arena[at + 1 + n + i]`).
 * A removed slot's place is waste, reclaimed by compacting the arena once waste is half of it.
 */
export class SlotTerms {
  private records: Int32Array = new Int32Array(1024);
  /** Per slot, the offset of its record, or 0 while it has none (0 is never an offset). */
  private starts: Int32Array = new Int32Array(64);
  private top = 1;
  private waste = 0;

  /** The arena (see the class comment); replaced when it grows or is compacted by {@link make} or {@link drop}. */
  get arena(): Int32Array {
    return this.records;
  }

  /** Makes room for slots below `capacity`. */
  reserve(capacity: number): void {
    if (capacity <= this.starts.length) return;
    const starts = new Int32Array(capacity);
    starts.set(this.starts);
    this.starts = starts;
  }

  /** The offset of a slot's record, or 0 when it has none. */
  at(slot: number): number {
    return this.starts[slot] ?? 0;
  }

  /** Places a record of `count` terms for a slot that has none, its count set and the rest zero; returns it. */
  make(slot: number, count: number): number {
    const size = 1 + 2 * count;
    if (this.top + size > this.records.length) this.grow(size);
    const at = this.top;
    this.records.fill(0, at, at + size);
    this.records[at] = count;
    this.top += size;
    this.reserve(slot + 1);
    this.starts[slot] = at;
    return at;
  }

  /** Gives back the arena's room past its last record (after a bulk load, which knows it is done growing). */
  fit(): void {
    if (this.records.length === this.top) return;
    this.records = this.records.slice(0, this.top);
  }

  /** Drops a slot's record, compacting the arena once most of it is waste. */
  drop(slot: number): void {
    const at = this.starts[slot] ?? 0;
    if (at === 0) return;
    this.waste += 1 + 2 * this.records[at]!;
    this.starts[slot] = 0;
    if (this.waste > 4096 && this.waste * 2 >= this.top) this.compact(0);
  }

  private grow(size: number): void {
    if (this.waste * 2 >= this.top) this.compact(size);
    if (this.top + size <= this.records.length) return;
    const length = grownLength(this.records.length, this.top + size);
    const grown = new Int32Array(length);
    grown.set(this.records.subarray(0, this.top));
    this.records = grown;
  }

  /** Copies every record, in slot order, into an arena with room for `extra` more, and drops the old one. */
  private compact(extra: number): void {
    const length = grownLength(0, this.top - this.waste + extra);
    const old = this.records;
    const next = new Int32Array(length);
    let top = 1;
    for (let slot = 0; slot < this.starts.length; slot += 1) {
      const from = this.starts[slot]!;
      if (from === 0) continue;
      const size = 1 + 2 * old[from]!;
      next.set(old.subarray(from, from + size), top);
      this.starts[slot] = top;
      top += size;
    }
    this.records = next;
    this.top = top;
    this.waste = 0;
  }
}
