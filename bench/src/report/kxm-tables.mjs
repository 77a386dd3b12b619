// @ts-check
// KXM's own tables over every pool size: where a packet's time goes, and the details behind its figures.
import { bytes, count, micros, ms, table } from "./format.mjs";

/** @param {readonly any[]} results KXM's results per size */
export function phasesTable(results) {
  /** @param {Record<string, number>} p */
  const split = (p) =>
    ["tokenizeMs", "scoreMs", "sortMs", "fillMs"].map((key) => ms(p[key] ?? Number.NaN)).join(" / ");
  return table(
    [
      "pool",
      "long tasks: tokenize / score / sort / fill p50 ms",
      "short tasks: tokenize / score / sort / fill p50 ms",
    ],
    results
      .filter((r) => r.phases !== undefined)
      .map((r) => [count(r.size), split(r.phases.long), split(r.phases.short)]),
    ["r", "r", "r"],
  );
}

/** @param {readonly any[]} results KXM's results per size */
export function detailsTable(results) {
  /** @param {{ p50: number, p99: number }} s */
  const pair = (s) => `${ms(s.p50)} / ${ms(s.p99)}`;
  return table(
    [
      "pool",
      "pool SHA-256",
      "planner p50 / p99",
      "implementer p50 / p99",
      "plain p50 ms (× indexed)",
      "eligible / matched / selected",
      "recall words / phrase / substring / miss p50",
      "substring scan p50 / p99",
      "update p99 µs",
      "pool bytes/item",
      "samples (packets, plain, recall)",
    ],
    results.map((r) => [
      count(r.size),
      `\`${r.fingerprint}\``,
      pair(r.assembleByRole.planner),
      pair(r.assembleByRole.implementer),
      `${ms(r.plain.p50)} (${count(r.speedup)}×)`,
      `${count(r.medianCandidates)} / ${count(r.medianMatched)} / ${count(r.medianSelected)}`,
      ["words", "phrase", "substring", "miss"]
        .map((type) => ms(r.recallByType[type]?.p50 ?? Number.NaN))
        .join(" / "),
      pair(r.substringScan),
      micros(r.update.p99Us),
      bytes(r.poolBytesPerItem),
      `${count(r.assemble.n)}, ${count(r.plain.n)}, ${count(r.recall.n)}`,
    ]),
    ["r", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
  );
}
