// One Int32Array holding many small records, each found by its key in a table of offsets: the postings lists and
// each slot's record of its terms (postings.ts). A typed array per record would cost each its headers (about 100
// bytes) and a pointer, and an index holds tens of thousands of them.

/**
 * Records of Int32s in one array. A record is placed at the end; a record that is dropped or moved leaves waste,
 * reclaimed by compacting once waste is half of the arena. The array grows by a quarter, not double: the arenas
 * are the index's largest arrays, and an index that grows past its bulk load should not double them (adding
 * record by record still copies the array O(log n) times). A record's offset is where its first field after
 * `lead` header ints sits; 0 is never an offset, so a key's offset 0 means it has no record.
 */
export class Arena {
  /** The records; replaced when the arena grows or is compacted, so a reader keeps it for one request only. */
  data: Int32Array = new Int32Array(1024);
  /** Per key, the offset of its record, or 0 while it has none. */
  starts: Int32Array;
  private top = 1;
  private waste = 0;

  /**
   * @param lead header ints stored before a record's offset
   * @param sizeAt a record's whole length in ints (its header included), read from the record at `at`
   */
  constructor(
    private readonly lead: number,
    private readonly sizeAt: (data: Int32Array, at: number) => number,
    keys: number,
  ) {
    this.starts = new Int32Array(keys);
  }

  /** Makes room for keys below `keys`. */
  reserveKeys(keys: number): void {
    if (keys <= this.starts.length) return;
    let length = this.starts.length;
    while (length < keys) length *= 2;
    const starts = new Int32Array(length);
    starts.set(this.starts);
    this.starts = starts;
  }

  /**
   * Makes room for `ints` more; `exact` (a bulk load, which knows its size) makes the array just large enough.
   * Room may be made by compacting, which moves every record: read offsets again after it.
   */
  ensure(ints: number, exact = false): void {
    if (this.top + ints <= this.data.length) return;
    if (this.waste * 2 >= this.top) this.compact(ints);
    if (this.top + ints <= this.data.length) return;
    const length = exact ? this.top + ints : grownLength(this.data.length, this.top + ints);
    const grown = new Int32Array(length);
    grown.set(this.data.subarray(0, this.top));
    this.data = grown;
  }

  /** Places a record of `ints` ints (its header included), all zero, at the end for `key`; returns its offset. */
  place(key: number, ints: number): number {
    this.ensure(ints);
    const at = this.top + this.lead;
    this.data.fill(0, this.top, this.top + ints);
    this.top += ints;
    this.starts[key] = at;
    return at;
  }

  /**
   * Forgets `key`'s record, whose place becomes waste. It never compacts, so offsets read before stay good until
   * {@link settle}.
   */
  drop(key: number): void {
    const at = this.starts[key]!;
    if (at === 0) return;
    this.waste += this.sizeAt(this.data, at);
    this.starts[key] = 0;
  }

  /** Compacts once most of the arena is waste (after drops: a pool that shrank a lot). */
  settle(): void {
    if (this.waste > 4096 && this.waste * 2 >= this.top) this.compact(0);
  }

  /** Counts a record's old place as waste after it was placed again elsewhere (a list that outgrew it). */
  abandon(ints: number): void {
    this.waste += ints;
  }

  /** Gives back the room past the last record (after a bulk load, which knows it is done growing). */
  fit(): void {
    if (this.data.length !== this.top) this.data = this.data.slice(0, this.top);
  }

  /** Copies every record, in key order, into an array with room for `extra` more, and drops the old one. */
  private compact(extra: number): void {
    const old = this.data;
    const next = new Int32Array(grownLength(0, this.top - this.waste + extra));
    const { starts, lead } = this;
    let top = 1;
    for (let key = 0; key < starts.length; key += 1) {
      const from = starts[key]!;
      if (from === 0) continue;
      const size = this.sizeAt(old, from);
      next.set(old.subarray(from - lead, from - lead + size), top);
      starts[key] = top + lead;
      top += size;
    }
    this.data = next;
    this.top = top;
    this.waste = 0;
  }
}

/** The length an arena grows to: at least `needed`, a quarter more than `length`, and never under 1,024. */
function grownLength(length: number, needed: number): number {
  return Math.max(1024, needed, Math.ceil(length * 1.25));
}
