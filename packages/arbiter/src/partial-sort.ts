// Ordering only as much of a bucket as the walk reaches: the best few slots by score moved to the front, by
// selection rather than a full sort.

/** The first chunk of a bucket the walk orders; each further chunk is four times the last. */
export const FIRST_CHUNK = 64;

/**
 * Moves the best `count` slots of slots[start, end) by score (and any tied with the count-th best) to the front of
 * that range, in no particular order, and returns how many it moved. Every slot left behind has a lower score than
 * every slot moved, so the moved ones, sorted, come first in rank order. `values` is scratch of at least
 * end - start numbers.
 */
export function bringBest(
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
