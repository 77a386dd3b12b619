// @ts-check
// How the report writes numbers and Markdown tables; every renderer formats through these (names: labels.mjs).

/** @param {number} n */
export const count = (n) => n.toLocaleString("en-US");

/**
 * Milliseconds with about three significant digits.
 * @param {number} ms
 */
export function ms(ms) {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms >= 100) return count(Math.round(ms));
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

/**
 * Bytes per item; a tiny pool can measure below zero (the heap moves by more than the pool holds).
 * @param {number} bytes
 */
export const bytes = (bytes) => (bytes > 0 ? count(bytes) : "n/a");

/** @param {number} us */
export const micros = (us) => (us >= 100 ? count(Math.round(us)) : us.toFixed(1));

/** @param {number} value */
export const ratio = (value) =>
  Number.isFinite(value) && value > 0 ? `${value >= 10 ? Math.round(value) : value.toFixed(2)}×` : "n/a";

/** A Cranfield measure: four decimals. @param {number} value */
export const three = (value) => value.toFixed(4);

/**
 * @param {readonly string[]} header
 * @param {readonly string[][]} rows
 * @param {readonly ("l" | "r")[]} align
 */
export function table(header, rows, align) {
  const line = (/** @type {readonly string[]} */ cells) => `| ${cells.join(" | ")} |`;
  return [
    line(header),
    line(align.map((a) => (a === "r" ? "---:" : "---"))),
    ...rows.map((row) => line(row)),
  ].join("\n");
}
