// @ts-check
// Cranfield's figures reduced for the report: means per system, KXM against the best peer, and wink's equality check.
import { mean, pairedBootstrap, READINGS } from "../cranfield.mjs";

/**
 * Cranfield measures per system, the best peer per reading, KXM minus that peer with a paired bootstrap interval,
 * and the equality check: wink-bm25 fed KXM's tokenizer and parameters must score exactly what KXM scores.
 * @param {readonly { system: string, buildMs: number, queryMs: number, perQuery: Record<string, { ndcg10: number[], recall100: number[] }> }[]} systems
 */
export function cranfieldSummary(systems) {
  const rows = systems.map(({ system, buildMs, queryMs, perQuery }) => ({
    system,
    buildMs,
    queryMs,
    ndcg10: Object.fromEntries(READINGS.map((reading) => [reading, mean(perQuery[reading]?.ndcg10 ?? [])])),
    recall100: Object.fromEntries(
      READINGS.map((reading) => [reading, mean(perQuery[reading]?.recall100 ?? [])]),
    ),
  }));
  const kxm = systems.find((s) => s.system === "kxm");
  // The peers as their users would run them: not KXM's recall, nor wink fed KXM's own tokenizer.
  const english = systems.find((s) => s.system === "kxm-english");
  const peers = systems.filter(
    (s) => !["kxm", "kxm-recall", "kxm-english", "wink-bm25-kxm"].includes(s.system),
  );
  /** @typedef {{ peer: string, kxm: number, best: number, difference: number, low: number, high: number }} VersusBest */
  /** @type {Record<string, VersusBest & { english?: VersusBest }>} */
  const versusBest = {};
  for (const reading of READINGS) {
    const best = peers
      .map((peer) => ({ peer, value: mean(peer.perQuery[reading]?.ndcg10 ?? []) }))
      .sort((a, b) => b.value - a.value)[0];
    if (kxm === undefined || best === undefined) continue;
    const bestValues = best.peer.perQuery[reading]?.ndcg10 ?? [];
    /** @param {{ perQuery: Record<string, { ndcg10: number[] }> }} system */
    const against = (system) => {
      const values = system.perQuery[reading]?.ndcg10 ?? [];
      return {
        peer: best.peer.system,
        kxm: mean(values),
        best: best.value,
        ...pairedBootstrap(values, bestValues),
      };
    };
    // The english analysis against the same best peer, when the run has it.
    versusBest[reading] = {
      ...against(kxm),
      ...(english === undefined ? {} : { english: against(english) }),
    };
  }
  const winkKxm = systems.find((s) => s.system === "wink-bm25-kxm");
  /** The largest per-query difference in nDCG@10 or recall@100 between KXM and wink fed KXM's tokenizer. */
  let largest = Number.NaN;
  if (kxm !== undefined && winkKxm !== undefined) {
    largest = 0;
    for (const reading of READINGS) {
      for (const measure of /** @type {const} */ (["ndcg10", "recall100"])) {
        const a = kxm.perQuery[reading]?.[measure] ?? [];
        const b = winkKxm.perQuery[reading]?.[measure] ?? [];
        a.forEach((value, i) => {
          largest = Math.max(largest, Math.abs(value - /** @type {number} */ (b[i])));
        });
      }
    }
  }
  return {
    rows,
    versusBest,
    winkEqual: { compared: Number.isFinite(largest), largestDifference: largest, holds: !(largest > 1e-12) },
  };
}
