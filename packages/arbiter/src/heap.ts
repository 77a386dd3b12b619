/**
 * A binary min-heap of slot numbers under a comparator. Built in O(n) and popped lazily, so a walk that stops
 * early pays only for the items it reached instead of a full sort.
 */
class SlotHeap {
  constructor(
    private readonly slots: number[],
    private readonly compare: (a: number, b: number) => number,
  ) {
    for (let i = (slots.length >>> 1) - 1; i >= 0; i -= 1) this.down(i);
  }

  get size(): number {
    return this.slots.length;
  }

  /** The smallest slot. Call only when {@link size} > 0. */
  peek(): number {
    return this.slots[0]!;
  }

  /** Removes and returns the smallest slot. Call only when {@link size} > 0. */
  pop(): number {
    const slots = this.slots;
    const top = slots[0]!;
    const last = slots.pop()!;
    if (slots.length > 0) {
      slots[0] = last;
      this.down(0);
    }
    return top;
  }

  push(slot: number): void {
    const slots = this.slots;
    let i = slots.length;
    slots.push(slot);
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (this.compare(slot, slots[parent]!) >= 0) break;
      slots[i] = slots[parent]!;
      i = parent;
    }
    slots[i] = slot;
  }

  /** The remaining slots, in no particular order. */
  toArray(): number[] {
    return [...this.slots];
  }

  private down(start: number): void {
    const slots = this.slots;
    const n = slots.length;
    const item = slots[start]!;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.compare(slots[child + 1]!, slots[child]!) < 0) child += 1;
      if (this.compare(slots[child]!, item) >= 0) break;
      slots[i] = slots[child]!;
      i = child;
    }
    slots[i] = item;
  }
}

/** The `k` smallest slots in order, by a bounded heap: O(n log k) instead of sorting all n. */
export function smallest(
  slots: readonly number[],
  k: number,
  compare: (a: number, b: number) => number,
): number[] {
  if (slots.length <= k) return [...slots].sort(compare);
  // A max-heap of the best k so far: its root is the worst one kept, replaced when a better slot comes.
  const kept = new SlotHeap(slots.slice(0, k), (a, b) => compare(b, a));
  for (let i = k; i < slots.length; i += 1) {
    const slot = slots[i]!;
    if (compare(slot, kept.peek()) < 0) {
      kept.pop();
      kept.push(slot);
    }
  }
  return kept.toArray().sort(compare);
}
