// @ts-check

/**
 * The nearest-rank percentile of `values` (0 < p <= 100); NaN for none.
 * @param {readonly number[]} values
 * @param {number} p
 */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return /** @type {number} */ (sorted[rank - 1]);
}

/** @param {number} n */
export const count = (n) => n.toLocaleString("en-US");

/** A ratio as a percentage with one decimal, such as 99.4%. @param {number} part @param {number} whole */
export const percent = (part, whole) => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)}%`);
