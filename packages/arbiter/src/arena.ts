// How the index's arenas (postings.ts, slot-terms.ts) grow.

/**
 * The length an arena grows to: at least `needed`, and a quarter more than `length` (never under 1,024). A quarter
 * rather than double: the arenas are the index's largest arrays, and an index that grows past its bulk load should
 * not double them; adding slot by slot still copies an arena O(log n) times.
 */
export function grownLength(length: number, needed: number): number {
  return Math.max(1024, needed, Math.ceil(length * 1.25));
}
