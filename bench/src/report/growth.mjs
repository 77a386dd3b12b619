// @ts-check
// How each system's figures grow with the pool: the exponent k of cost ∝ n^k between consecutive pool sizes, so
// a cost that grows faster than the pool (k above 1) shows. Memory is the index's whole size, not per item.
import { figures } from "./figures.mjs";
import { count, table } from "./format.mjs";

/**
 * The exponent between two sizes, or n/a when either figure is missing.
 * @param {number} a the figure at size na
 * @param {number} b the figure at size nb
 * @param {number} na
 * @param {number} nb
 */
export function growthExponent(a, b, na, nb) {
  if (!(Number.isFinite(a) && Number.isFinite(b) && a > 0 && b > 0 && nb > na)) return Number.NaN;
  return Math.log(b / a) / Math.log(nb / na);
}

/** @param {number} k */
const exponent = (k) => (Number.isFinite(k) ? k.toFixed(2) : "n/a");

/** @type {readonly { label: string, of: (f: any) => number }[]} */
const MEASURES = [
  { label: "build", of: (f) => f.buildMs },
  { label: "long p50", of: (f) => ("skipped" in f.long ? Number.NaN : f.long.p50) },
  { label: "long p99", of: (f) => ("skipped" in f.long ? Number.NaN : f.long.p99) },
  { label: "short p50", of: (f) => ("skipped" in f.short ? Number.NaN : f.short.p50) },
  { label: "recall p50", of: (f) => f.recall.p50 },
  { label: "index bytes", of: (f) => f.bytes * f.size },
];

/**
 * One row per system, one column per figure; each cell lists the exponents from each pool size to the next.
 * @param {readonly { size: number, kxm: any, peers: any[] }[]} sizes
 * @param {(system: string) => string} labelOf the name the report gives a system
 */
export function growthTable(sizes, labelOf) {
  const ordered = [...sizes].sort((a, b) => a.size - b.size);
  if (ordered.length < 2) return "";
  const systems = [ordered[0]?.kxm, ...(ordered[0]?.peers ?? [])].map((r) => r.system);
  const rows = systems.map((system) => {
    const at = ordered.map((entry) => {
      const r = system === "kxm" ? entry.kxm : entry.peers.find((p) => p.system === system);
      return r === undefined ? undefined : { ...figures(r), size: entry.size };
    });
    const cells = MEASURES.map(({ of }) =>
      at
        .slice(1)
        .map((b, i) => {
          const a = at[i];
          return exponent(a && b ? growthExponent(of(a), of(b), a.size, b.size) : Number.NaN);
        })
        .join(" / "),
    );
    return [labelOf(system), ...cells];
  });
  const steps = ordered
    .slice(1)
    .map((entry, i) => `${count(ordered[i]?.size ?? 0)} → ${count(entry.size)}`)
    .join(", ");
  return [
    `Growth: the exponent k in cost ∝ n^k from each pool size to the next (${steps}); 1 is linear in the pool, ` +
      "0 flat. Index bytes are the whole index's, not per item.",
    "",
    table(["system", ...MEASURES.map((m) => m.label)], rows, [
      "l",
      ...MEASURES.map(() => /** @type {const} */ ("r")),
    ]),
  ].join("\n");
}
