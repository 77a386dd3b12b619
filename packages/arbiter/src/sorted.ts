/** The first position in a sorted array whose element does not come before `value`. */
function lowerBound<T>(array: readonly T[], value: T, compare: (a: T, b: T) => number): number {
  let low = 0;
  let high = array.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(array[mid]!, value) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Inserts into a sorted array, keeping it sorted. */
export function sortedInsert<T>(array: T[], value: T, compare: (a: T, b: T) => number): void {
  array.splice(lowerBound(array, value, compare), 0, value);
}

/** Removes `value` (found by identity at its sorted position) from a sorted array. */
export function sortedRemove<T>(array: T[], value: T, compare: (a: T, b: T) => number): void {
  const at = lowerBound(array, value, compare);
  if (array[at] !== value) throw new Error("sorted index out of step with its entries");
  array.splice(at, 1);
}
