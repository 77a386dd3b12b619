// @ts-check
// The issue's targets as a data table: each threshold once, each target a row builder over one part of the run.
import { bytes, count, ms, ratio, three } from "./format.mjs";
import { labelOf } from "./labels.mjs";

/** @typedef {{ target: string, measured: string, holds: boolean | null }} TargetRow */
/** @typedef {{ size: number, kxm: any, peers: any[] }} SizeEntry */

/** Every threshold a target holds a figure to (issue 23's, the second round). */
const THRESHOLDS = {
  /** Long-task packet p50 and p99 ceilings, in ms, at the pool sizes that have one (1M: p50 only). */
  packetMs: /** @type {Readonly<Record<number, { p50: number, p99?: number }>>} */ ({
    10000: { p50: 0.8, p99: 2 },
    100000: { p50: 4, p99: 10 },
    1000000: { p50: 40 },
  }),
  /** At 1M items the index, records included, within this many bytes. */
  indexBytesAt1M: 3e9,
  /** Recall p50 at most FTS5's plain query's, and at most this multiple of FlexSearch's. */
  recallOverFlexSearch: 2,
  /** The pool size whose build must be no slower than FTS5's, and whose memory per item has a ceiling. */
  buildAndMemorySize: 100000,
  /** Memory per item at that size, records included, at most this many bytes. */
  bytesPerItem: 2500,
  /** Cranfield nDCG@10 of the English profile at least this far above the best peer's. */
  cranfieldMargin: 0.01,
  /** The hub's /context and /recall p50 in the server at most this multiple of the same call in-process. */
  hubOverInProcess: 1.15,
};

/** @param {number} size */
const itemsAt = (size) => `${count(size)} items`;

/** @param {string} reading */
const readingLabel = (reading) => (reading === "generous" ? "-1 relevant" : "-1 dropped");

/** @param {readonly any[]} peers @param {string} system */
const peerOf = (peers, system) => peers.find((p) => p.system === system && !("skipped" in p.recall));

/** @type {((entry: SizeEntry) => TargetRow | undefined)[]} */
const PER_SIZE = [
  ({ size, kxm }) => {
    const limit = THRESHOLDS.packetMs[size];
    if (limit === undefined) return undefined;
    const { p99 } = limit;
    return {
      target: `long-task packet p50 ≤ ${limit.p50} ms${p99 === undefined ? "" : `, p99 ≤ ${p99} ms`} at ${itemsAt(size)}`,
      measured: `${ms(kxm.assemble.p50)} / ${ms(kxm.assemble.p99)} ms`,
      holds: kxm.assemble.p50 <= limit.p50 && (p99 === undefined || kxm.assemble.p99 <= p99),
    };
  },
  ({ size, kxm }) => {
    if (size !== 1000000) return undefined;
    const total = kxm.indexBytesPerItem * size;
    return {
      target: `the index within ${THRESHOLDS.indexBytesAt1M / 1e9} GB at ${itemsAt(size)}, records included`,
      measured: `${(total / 1e9).toFixed(2)} GB (${bytes(kxm.indexBytesPerItem)} bytes per item)`,
      holds: kxm.indexBytesPerItem > 0 ? total <= THRESHOLDS.indexBytesAt1M : null,
    };
  },
  ({ size, kxm, peers }) => {
    const fts5 = peerOf(peers, "fts5");
    if (fts5 === undefined || size !== THRESHOLDS.buildAndMemorySize) return undefined;
    return {
      target: `index build no slower than SQLite FTS5's at ${itemsAt(size)}`,
      measured: `KXM ${ms(kxm.buildMs)}; FTS5 ${ms(fts5.buildMs)} ms (${ratio(kxm.buildMs / fts5.buildMs)})`,
      holds: kxm.buildMs <= fts5.buildMs,
    };
  },
  ({ size, kxm }) => {
    if (size !== THRESHOLDS.buildAndMemorySize) return undefined;
    return {
      target: `memory per item ≤ ${bytes(THRESHOLDS.bytesPerItem)} bytes at ${itemsAt(size)}, records included`,
      measured: `${bytes(kxm.indexBytesPerItem)} bytes`,
      holds: kxm.indexBytesPerItem > 0 ? kxm.indexBytesPerItem <= THRESHOLDS.bytesPerItem : null,
    };
  },
];

/** @type {((entry: SizeEntry) => TargetRow | undefined)[]} */
const RECALL_PER_SIZE = [
  ({ size, kxm, peers }) => {
    const fts5 = peerOf(peers, "fts5");
    const flex = peerOf(peers, "flexsearch");
    if (fts5 === undefined || flex === undefined) return undefined;
    return {
      target: `recall p50 ≤ FTS5's and ≤ ${THRESHOLDS.recallOverFlexSearch} × FlexSearch's at ${itemsAt(size)}`,
      measured:
        `KXM ${ms(kxm.recall.p50)}; FTS5 ${ms(fts5.recall.p50)} (${ratio(kxm.recall.p50 / fts5.recall.p50)}); ` +
        `FlexSearch ${ms(flex.recall.p50)} ms (${ratio(kxm.recall.p50 / flex.recall.p50)})`,
      holds:
        kxm.recall.p50 <= fts5.recall.p50 &&
        kxm.recall.p50 <= THRESHOLDS.recallOverFlexSearch * flex.recall.p50,
    };
  },
];

/** @type {((entry: [string, any]) => TargetRow | undefined)[]} */
const PER_CRANFIELD_READING = [
  ([reading, v]) => {
    // Measured against the English profile once the run has one; until then KXM's default analysis stands in,
    // and the target does not hold.
    const english = v.english;
    const kxm = english ?? v;
    return {
      target:
        `Cranfield nDCG@10 of the English profile ≥ the best peer's + ${THRESHOLDS.cranfieldMargin}, ` +
        `its bootstrap interval above zero (${readingLabel(reading)})`,
      measured:
        `${english === undefined ? "no English profile; default analysis " : ""}${three(kxm.kxm)} vs ` +
        `${labelOf(kxm.peer)} ${three(kxm.best)} (difference ${three(kxm.difference)}, interval ` +
        `${three(kxm.low)} to ${three(kxm.high)})`,
      holds: english !== undefined && english.difference >= THRESHOLDS.cranfieldMargin && english.low > 0,
    };
  },
];

/**
 * The target on one hub route: its p50 in the server against the same arbiter call made in-process.
 * @param {"contextLong" | "recall"} route the hub section's name of the route
 * @param {"long" | "recall"} call the in-process call's name
 * @param {string} label
 * @returns {(hub: any) => TargetRow | undefined}
 */
const hubRoute = (route, call, label) => (hub) => {
  const inHub = hub[route]?.inHub;
  const inProcess = hub.inProcess?.[call];
  if (inHub === undefined || inProcess === undefined) return undefined;
  const over = inHub.p50 / inProcess.p50;
  return {
    target: `hub ${label} p50 in the server ≤ ${THRESHOLDS.hubOverInProcess} × the in-process arbiter call (${count(hub.size)} items)`,
    measured: `${ms(inHub.p50)} vs ${ms(inProcess.p50)} ms in-process (${ratio(over)})`,
    holds: over <= THRESHOLDS.hubOverInProcess,
  };
};

/** @type {((hub: any) => TargetRow | undefined)[]} */
const PER_HUB = [
  hubRoute("contextLong", "long", "/context, long tasks"),
  hubRoute("recall", "recall", "/recall"),
];

/**
 * Each group's builders over each of its instances, instance by instance: the rows in report order.
 * @template T
 * @param {readonly T[]} instances
 * @param {readonly ((instance: T) => TargetRow | undefined)[]} builders
 * @returns {TargetRow[]}
 */
function rowsOf(instances, builders) {
  return instances.flatMap((instance) =>
    builders.flatMap((build) => {
      const row = build(instance);
      return row === undefined ? [] : [row];
    }),
  );
}

/**
 * The issue's targets, each with what this run measured and whether it holds: per pool size, then recall per pool
 * size, then Cranfield per reading, then the hub.
 * @param {readonly SizeEntry[]} sizes
 * @param {{ versusBest: Record<string, any> } | null} cranfield
 * @param {any} hub
 * @returns {TargetRow[]}
 */
export function targets(sizes, cranfield, hub) {
  return [
    ...rowsOf(sizes, PER_SIZE),
    ...rowsOf(sizes, RECALL_PER_SIZE),
    ...rowsOf(cranfield === null ? [] : Object.entries(cranfield.versusBest), PER_CRANFIELD_READING),
    ...rowsOf(hub === null ? [] : [hub], PER_HUB),
  ];
}
