// @ts-check
// The targets as a data table: each threshold once, each target a row builder over one part of the run.
import { bytes, count, ms, ratio, three } from "./format.mjs";
import { labelOf } from "./labels.mjs";

/** @typedef {{ target: string, measured: string, holds: boolean | null }} TargetRow */
/** @typedef {{ size: number, kxm: any, peers: any[] }} SizeEntry */

/** Every threshold a target holds a figure to. */
const THRESHOLDS = {
  /** Long-task packet p50 and p99 ceilings, in ms, at the pool sizes that have one. */
  packetMs: /** @type {Readonly<Record<number, { p50: number, p99: number }>>} */ ({
    10000: { p50: 2, p99: 5 },
    100000: { p50: 25, p99: 50 },
  }),
  /** The peers whose short-task query KXM's short-task packet must match or beat. */
  shortTaskPeers: ["flexsearch", "fts5", "fts5-porter"],
  /** Recall p50 at most this multiple of a bare substring scan's. */
  recallOverScan: 1.5,
  /** Cranfield nDCG@10 at most this far below the best peer's. */
  cranfieldMargin: 0.01,
  /** The hub's /context p50 at most this multiple of the bare route's. */
  hubOverhead: 1.1,
};

/** @param {number} size */
const itemsAt = (size) => `${count(size)} items`;

/** @param {string} reading */
const readingLabel = (reading) => (reading === "generous" ? "-1 relevant" : "-1 dropped");

/** @type {((entry: SizeEntry) => TargetRow | undefined)[]} */
const PER_SIZE = [
  ({ size, kxm }) => {
    const limit = THRESHOLDS.packetMs[size];
    if (limit === undefined) return undefined;
    return {
      target: `long-task packet p50 ≤ ${limit.p50} ms, p99 ≤ ${limit.p99} ms at ${itemsAt(size)}`,
      measured: `${ms(kxm.assemble.p50)} / ${ms(kxm.assemble.p99)} ms`,
      holds: kxm.assemble.p50 <= limit.p50 && kxm.assemble.p99 <= limit.p99,
    };
  },
  ({ size, kxm, peers }) => {
    if (peers.length === 0) return undefined;
    // A skipped phase (NaN) was predicted slower than a whole phase: it is not the fastest.
    const fastestLong = Math.min(...peers.map((p) => p.long.p50).filter(Number.isFinite));
    const fastestLong99 = Math.min(...peers.map((p) => p.long.p99).filter(Number.isFinite));
    return {
      target: `long-task packet ahead of every peer's plain query (p50 and p99) at ${itemsAt(size)}`,
      measured: `KXM ${ms(kxm.assemble.p50)} / ${ms(kxm.assemble.p99)}; fastest peer ${ms(fastestLong)} / ${ms(fastestLong99)} ms`,
      holds: kxm.assemble.p50 < fastestLong && kxm.assemble.p99 < fastestLong99,
    };
  },
  ({ size, kxm, peers }) => {
    const shortPeers = peers.filter((p) => THRESHOLDS.shortTaskPeers.includes(p.system));
    if (shortPeers.length === 0) return undefined;
    const best = Math.min(...shortPeers.map((p) => p.short.p50).filter(Number.isFinite));
    return {
      target: `short-task packet p50 at most FlexSearch's and FTS5's at ${itemsAt(size)}`,
      measured: `KXM ${ms(kxm.assembleShort.p50)}; best of them ${ms(best)} ms`,
      holds: kxm.assembleShort.p50 <= best,
    };
  },
  ({ size, kxm, peers }) => {
    const jsPeers = peers.filter((p) => !p.system.startsWith("fts5"));
    if (jsPeers.length === 0) return undefined;
    const fastest = Math.min(...jsPeers.map((p) => p.buildMs).filter(Number.isFinite));
    return {
      target: `index build faster than every JavaScript peer at ${itemsAt(size)}`,
      measured: `KXM ${ms(kxm.buildMs)}; fastest JS peer ${ms(fastest)} ms`,
      holds: kxm.buildMs < fastest,
    };
  },
  ({ size, kxm, peers }) => {
    const mini = peers.find((p) => p.system === "minisearch");
    if (mini === undefined) return undefined;
    return {
      target: `memory per item at most MiniSearch's at ${itemsAt(size)}`,
      measured: `KXM ${bytes(kxm.indexBytesPerItem)}; MiniSearch ${bytes(mini.bytesPerItem)} bytes`,
      // A small pool can measure at or below zero (the heap moves by more than the index holds): no verdict.
      holds:
        kxm.indexBytesPerItem > 0 && mini.bytesPerItem > 0
          ? kxm.indexBytesPerItem <= mini.bytesPerItem
          : null,
    };
  },
];

/** @type {((entry: SizeEntry) => TargetRow | undefined)[]} */
const RECALL_PER_SIZE = [
  ({ size, kxm }) => ({
    target: `recall p50 ≤ ${THRESHOLDS.recallOverScan} × a bare substring scan at ${itemsAt(size)}`,
    measured: `${ms(kxm.recall.p50)} vs scan ${ms(kxm.substringScan.p50)} ms (${ratio(kxm.recall.p50 / kxm.substringScan.p50)})`,
    holds: kxm.recall.p50 <= THRESHOLDS.recallOverScan * kxm.substringScan.p50,
  }),
];

/** @type {((entry: [string, any]) => TargetRow | undefined)[]} */
const PER_CRANFIELD_READING = [
  ([reading, v]) => ({
    target: `Cranfield nDCG@10 within ${THRESHOLDS.cranfieldMargin} of the best peer (${readingLabel(reading)})`,
    measured: `${three(v.kxm)} vs ${labelOf(v.peer)} ${three(v.best)}`,
    holds: v.kxm >= v.best - THRESHOLDS.cranfieldMargin,
  }),
];

/** @type {((hub: any) => TargetRow | undefined)[]} */
const PER_HUB = [
  (hub) => {
    const { inHub } = hub.contextLong;
    const { inServer } = hub.bareRoute.contextLong;
    const overhead = inHub.p50 / inServer.p50;
    return {
      target: `hub /context adds at most ${Math.round((THRESHOLDS.hubOverhead - 1) * 100)}% over the bare assembly, served by a bare Fastify route (long tasks, ${count(hub.size)} items)`,
      measured:
        `p50 in the hub ${ms(inHub.p50)} vs the bare route ${ms(inServer.p50)} ms (${ratio(overhead)}); over their own ` +
        `arbiter calls ${ratio(inHub.p50 / inHub.arbiter.p50)} and ${ratio(inServer.p50 / inServer.arbiter.p50)}`,
      holds: overhead <= THRESHOLDS.hubOverhead,
    };
  },
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
 * The targets, each with what this run measured and whether it holds: per pool size, then recall per pool
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
