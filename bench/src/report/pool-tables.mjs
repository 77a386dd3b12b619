// @ts-check
// The two tables of one pool size: every system's absolute figures, and each peer's figures over KXM's.

import { figures } from "./figures.mjs";
import { bytes, micros, ms, ratio, table } from "./format.mjs";
import { labelOf } from "./labels.mjs";

/** @param {{ p50: number, p95: number, p99: number }} s */
const triple = (s) => ("skipped" in s ? "skipped (too slow)" : `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`);

/** @param {{ size: number, kxm: any, peers: any[] }} entry */
export function absoluteTable({ kxm, peers }) {
  const rows = [kxm, ...peers].map(figures);
  /** @param {any} f */
  const name = (f) =>
    f.skipped === undefined ? labelOf(f.system) : `${labelOf(f.system)} (skipped: ${f.skipped})`;
  return table(
    [
      "system",
      "build ms",
      "update µs",
      "long p50 / p95 / p99 ms",
      "short p50 / p95 / p99 ms",
      "recall p50 / p99 ms",
      "bytes/item",
    ],
    rows.map((f) => [
      name(f),
      ms(f.buildMs),
      Number.isFinite(f.updateUs) ? micros(f.updateUs) : f.skipped === undefined ? "rebuild" : "n/a",
      triple(f.long),
      triple(f.short),
      `${ms(f.recall.p50)} / ${ms(f.recall.p99)}`,
      bytes(f.bytes),
    ]),
    ["l", "r", "r", "r", "r", "r", "r"],
  );
}

/** @param {{ size: number, kxm: any, peers: any[] }} entry */
export function ratioTable({ kxm, peers }) {
  const k = figures(kxm);
  return table(
    [
      "peer / KXM",
      "build",
      "update",
      "long p50",
      "long p99",
      "short p50",
      "short p99",
      "recall p50",
      "recall p99",
      "bytes/item",
    ],
    peers
      .map(figures)
      .map((f) => [
        labelOf(f.system),
        ratio(f.buildMs / k.buildMs),
        ratio(f.updateUs / k.updateUs),
        ratio(f.long.p50 / k.long.p50),
        ratio(f.long.p99 / k.long.p99),
        ratio(f.short.p50 / k.short.p50),
        ratio(f.short.p99 / k.short.p99),
        ratio(f.recall.p50 / k.recall.p50),
        ratio(f.recall.p99 / k.recall.p99),
        ratio(f.bytes / k.bytes),
      ]),
    ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
  );
}
