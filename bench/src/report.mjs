// @ts-check
// The Markdown report: the machine, the targets, per pool size a table of absolute figures and one of ratios
// (peer / KXM), KXM's own details, and Cranfield.
import os from "node:os";
import { mean, pairedBootstrap, READINGS } from "./cranfield.mjs";
import { ADAPTERS } from "./peers/adapters.mjs";

/** @typedef {import("./run.mjs").SizeResult} SizeResult */

/** Node version, CPU model, cores, platform and memory. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: os.availableParallelism?.() ?? cpus.length,
    platform: `${os.platform()} ${os.arch()}`,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    /** Other work on the machine skews timings: the 1-minute load average when the run started. */
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** @param {ReturnType<typeof machineInfo>} machine */
function machineLine(machine) {
  return (
    `node ${machine.node}, ${machine.cpu}, ${machine.cores} cores, ${machine.platform}, ` +
    `${machine.memoryGB} GB RAM, load average ${machine.loadAverage}`
  );
}

/** @param {number} n */
const count = (n) => n.toLocaleString("en-US");

/**
 * Milliseconds with about three significant digits.
 * @param {number} ms
 */
function ms(ms) {
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
const bytes = (bytes) => (bytes > 0 ? count(bytes) : "n/a");

/** @param {number} us */
const micros = (us) => (us >= 100 ? count(Math.round(us)) : us.toFixed(1));

/**
 * @param {readonly string[]} header
 * @param {readonly string[][]} rows
 * @param {readonly ("l" | "r")[]} align
 */
function table(header, rows, align) {
  const line = (/** @type {readonly string[]} */ cells) => `| ${cells.join(" | ")} |`;
  return [
    line(header),
    line(align.map((a) => (a === "r" ? "---:" : "---"))),
    ...rows.map((row) => line(row)),
  ].join("\n");
}

/** @param {string} system */
const labelOf = (system) =>
  system === "kxm"
    ? "KXM"
    : system === "kxm-recall"
      ? "KXM recall"
      : (ADAPTERS.find((adapter) => adapter.name === system)?.label ?? system);

/** @param {number} value */
const ratio = (value) =>
  Number.isFinite(value) && value > 0 ? `${value >= 10 ? Math.round(value) : value.toFixed(2)}×` : "n/a";

/**
 * A peer's figures next to KXM's, in the shape both tables read. For KXM, "long" and "short" are whole packets
 * (score, nine-key sort, budget fill); for a peer, its plain top-100 query.
 * @param {any} r
 */
function figures(r) {
  if (r.system === "kxm") {
    return {
      system: "kxm",
      buildMs: r.buildMs,
      updateUs: r.update.p50Us,
      long: r.assemble,
      short: r.assembleShort,
      recall: r.recall,
      bytes: r.indexBytesPerItem,
    };
  }
  return {
    system: r.system,
    buildMs: r.buildMs,
    updateUs: r.update?.p50Us ?? Number.NaN,
    long: r.long,
    short: r.short,
    recall: r.recall,
    bytes: r.bytesPerItem,
    skipped: r.skipped,
  };
}

/** @param {{ p50: number, p95: number, p99: number }} s */
const triple = (s) => ("skipped" in s ? "skipped (too slow)" : `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`);

/** @param {{ size: number, kxm: any, peers: any[] }} entry */
function absoluteTable({ kxm, peers }) {
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
function ratioTable({ kxm, peers }) {
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

/** @param {readonly any[]} results KXM's results per size */
function phasesTable(results) {
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
function detailsTable(results) {
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
  const peers = systems.filter((s) => !["kxm", "kxm-recall", "wink-bm25-kxm"].includes(s.system));
  /** @type {Record<string, { peer: string, kxm: number, best: number, difference: number, low: number, high: number }>} */
  const versusBest = {};
  for (const reading of READINGS) {
    const best = peers
      .map((peer) => ({ peer, value: mean(peer.perQuery[reading]?.ndcg10 ?? []) }))
      .sort((a, b) => b.value - a.value)[0];
    if (kxm === undefined || best === undefined) continue;
    const kxmValues = kxm.perQuery[reading]?.ndcg10 ?? [];
    versusBest[reading] = {
      peer: best.peer.system,
      kxm: mean(kxmValues),
      best: best.value,
      ...pairedBootstrap(kxmValues, best.peer.perQuery[reading]?.ndcg10 ?? []),
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

/** @param {number} value */
const three = (value) => value.toFixed(4);

/** @param {ReturnType<typeof cranfieldSummary>} c */
function cranfieldReport(c) {
  const lines = [
    table(
      [
        "system",
        "nDCG@10 (-1 relevant)",
        "nDCG@10 (-1 dropped)",
        "recall@100 (-1 relevant)",
        "recall@100 (-1 dropped)",
        "build ms",
        "225 queries ms",
      ],
      c.rows.map((r) => [
        labelOf(r.system),
        three(r.ndcg10.generous ?? 0),
        three(r.ndcg10.strict ?? 0),
        three(r.recall100.generous ?? 0),
        three(r.recall100.strict ?? 0),
        ms(r.buildMs),
        ms(r.queryMs),
      ]),
      ["l", "r", "r", "r", "r", "r", "r"],
    ),
    "",
  ];
  for (const [reading, v] of Object.entries(c.versusBest)) {
    lines.push(
      `- ${reading === "generous" ? "-1 read as most relevant" : "-1 dropped"}: KXM nDCG@10 ${three(v.kxm)}, best peer ` +
        `${labelOf(v.peer)} ${three(v.best)}; KXM − best ${v.difference >= 0 ? "+" : ""}${three(v.difference)}, ` +
        `paired bootstrap 95% interval [${three(v.low)}, ${three(v.high)}] (10,000 resamples of the 225 queries)`,
    );
  }
  lines.push(
    c.winkEqual.compared
      ? `- wink-bm25 fed KXM's tokenizer and BM25 parameters: ${c.winkEqual.holds ? "same" : "DIFFERENT"} nDCG@10 and recall@100 on every query (largest difference ${c.winkEqual.largestDifference})`
      : "- wink-bm25 fed KXM's tokenizer was not run: no equality check",
  );
  return lines.join("\n");
}

/**
 * The targets, each with what this run measured and whether it holds.
 * @param {readonly { size: number, kxm: any, peers: any[] }[]} sizes
 * @param {ReturnType<typeof cranfieldSummary> | null} cranfield
 * @param {any} hub
 */
function targets(sizes, cranfield, hub) {
  /** @type {{ target: string, measured: string, holds: boolean | null }[]} */
  const rows = [];
  const limits = { 10000: [2, 5], 100000: [25, 50] };
  for (const { size, kxm, peers } of sizes) {
    const at = `${count(size)} items`;
    const limit = /** @type {Record<number, number[]>} */ (limits)[size];
    if (limit !== undefined) {
      rows.push({
        target: `long-task packet p50 ≤ ${limit[0]} ms, p99 ≤ ${limit[1]} ms at ${at}`,
        measured: `${ms(kxm.assemble.p50)} / ${ms(kxm.assemble.p99)} ms`,
        holds:
          kxm.assemble.p50 <= /** @type {number} */ (limit[0]) &&
          kxm.assemble.p99 <= /** @type {number} */ (limit[1]),
      });
    }
    if (peers.length === 0) continue;
    // A skipped phase (NaN) was predicted slower than a whole phase: it is not the fastest.
    const fastestLong = Math.min(...peers.map((p) => p.long.p50).filter(Number.isFinite));
    const fastestLong99 = Math.min(...peers.map((p) => p.long.p99).filter(Number.isFinite));
    rows.push({
      target: `long-task packet ahead of every peer's plain query (p50 and p99) at ${at}`,
      measured: `KXM ${ms(kxm.assemble.p50)} / ${ms(kxm.assemble.p99)}; fastest peer ${ms(fastestLong)} / ${ms(fastestLong99)} ms`,
      holds: kxm.assemble.p50 < fastestLong && kxm.assemble.p99 < fastestLong99,
    });
    const shortPeers = peers.filter((p) => ["flexsearch", "fts5", "fts5-porter"].includes(p.system));
    if (shortPeers.length > 0) {
      const best = Math.min(...shortPeers.map((p) => p.short.p50).filter(Number.isFinite));
      rows.push({
        target: `short-task packet p50 at most FlexSearch's and FTS5's at ${at}`,
        measured: `KXM ${ms(kxm.assembleShort.p50)}; best of them ${ms(best)} ms`,
        holds: kxm.assembleShort.p50 <= best,
      });
    }
    const jsPeers = peers.filter((p) => !p.system.startsWith("fts5"));
    if (jsPeers.length > 0) {
      const fastest = Math.min(...jsPeers.map((p) => p.buildMs).filter(Number.isFinite));
      rows.push({
        target: `index build faster than every JavaScript peer at ${at}`,
        measured: `KXM ${ms(kxm.buildMs)}; fastest JS peer ${ms(fastest)} ms`,
        holds: kxm.buildMs < fastest,
      });
    }
    const mini = peers.find((p) => p.system === "minisearch");
    if (mini !== undefined) {
      rows.push({
        target: `memory per item at most MiniSearch's at ${at}`,
        measured: `KXM ${bytes(kxm.indexBytesPerItem)}; MiniSearch ${bytes(mini.bytesPerItem)} bytes`,
        // A small pool can measure at or below zero (the heap moves by more than the index holds): no verdict.
        holds:
          kxm.indexBytesPerItem > 0 && mini.bytesPerItem > 0
            ? kxm.indexBytesPerItem <= mini.bytesPerItem
            : null,
      });
    }
  }
  for (const { size, kxm } of sizes) {
    rows.push({
      target: `recall p50 ≤ 1.5 × a bare substring scan at ${count(size)} items`,
      measured: `${ms(kxm.recall.p50)} vs scan ${ms(kxm.substringScan.p50)} ms (${ratio(kxm.recall.p50 / kxm.substringScan.p50)})`,
      holds: kxm.recall.p50 <= 1.5 * kxm.substringScan.p50,
    });
  }
  if (cranfield !== null) {
    for (const [reading, v] of Object.entries(cranfield.versusBest)) {
      rows.push({
        target: `Cranfield nDCG@10 within 0.01 of the best peer (${reading === "generous" ? "-1 relevant" : "-1 dropped"})`,
        measured: `${three(v.kxm)} vs ${labelOf(v.peer)} ${three(v.best)}`,
        holds: v.kxm >= v.best - 0.01,
      });
    }
  }
  if (hub !== null) {
    const { inHub } = hub.contextLong;
    const { inServer } = hub.bareRoute.contextLong;
    const overhead = inHub.p50 / inServer.p50;
    rows.push({
      target: `hub /context adds at most 10% over the bare assembly, served by a bare Fastify route (long tasks, ${count(hub.size)} items)`,
      measured:
        `p50 in the hub ${ms(inHub.p50)} vs the bare route ${ms(inServer.p50)} ms (${ratio(overhead)}); over their own ` +
        `arbiter calls ${ratio(inHub.p50 / inHub.arbiter.p50)} and ${ratio(inServer.p50 / inServer.arbiter.p50)}`,
      holds: overhead <= 1.1,
    });
  }
  return rows;
}

/** @param {any} hub */
function hubReport(hub) {
  /** @param {any} c */
  const latency = (c) => `${ms(c.mean)} / ${ms(c.p50)} / ${ms(c.p90)} / ${ms(c.p99)}`;
  /** @param {any} c */
  const failures = (c) => c.non2xx + c.errors + c.timeouts;
  /** @param {string} label @param {any} c @param {any} server its own time per request, and its arbiter calls' */
  const route = (label, c, server) => [
    label,
    latency(c),
    count(Math.round(c.requestsPerSecond)),
    String(failures(c)),
    `${ms(server.p50)} / ${ms(server.p99)}`,
    ms(server.arbiter.p50),
    ratio(server.p50 / server.arbiter.p50),
  ];
  const bare = hub.bareRoute;
  /** @param {string} label @param {any} c @param {any} b @param {any} inProcess */
  const versus = (label, c, b, inProcess) => [
    label,
    ratio(c.inHub.p50 / b.inServer.p50),
    ratio(c.p50 / b.p50),
    ms(inProcess.p50),
  ];
  return [
    table(
      [
        "route",
        "round trip mean / p50 / p90 / p99 ms",
        "requests/s",
        "failed",
        "in the server p50 / p99 ms",
        "its arbiter calls p50 ms",
        "in the server / arbiter",
      ],
      [
        [
          "Fastify hello (yardstick)",
          latency(hub.hello),
          count(Math.round(hub.hello.requestsPerSecond)),
          String(failures(hub.hello)),
          "",
          "",
          "",
        ],
        route("hub /context, long tasks", hub.contextLong, hub.contextLong.inHub),
        route("bare route, long tasks", bare.contextLong, bare.contextLong.inServer),
        route("hub /context, short tasks", hub.contextShort, hub.contextShort.inHub),
        route("bare route, short tasks", bare.contextShort, bare.contextShort.inServer),
        route("hub /recall", hub.recall, hub.recall.inHub),
        route("bare route, recall", bare.recall, bare.recall.inServer),
      ],
      ["l", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    table(
      ["route", "hub / bare route, in the server", "hub / bare route, round trip", "in-process call p50 ms"],
      [
        versus("/context, long tasks", hub.contextLong, bare.contextLong, hub.inProcess.long),
        versus("/context, short tasks", hub.contextShort, bare.contextShort, hub.inProcess.short),
        versus("/recall", hub.recall, bare.recall, hub.inProcess.recall),
      ],
      ["l", "r", "r", "r"],
    ),
    "",
    `${count(hub.size)} journal records in one project; autocannon with 1 connection, in a process of its own, for ` +
      `${hub.bursts} bursts of ${hub.burstSeconds} s per route and server, the hub and the bare route taking turns ` +
      "(each going first in every other pair). " +
      "Round trips are each response's own duration on autocannon's side. In the server: for the hub, the " +
      "`durationMs` of its request log, from the request's arrival to its last byte handed to the socket; for the " +
      "bare route (a Fastify route answering the same requests from an index over the same items, with no auth, " +
      "validation, rate limit, log or pool lookup), the same Fastify clock; both in 0.1 ms steps. Its arbiter " +
      "calls: the PoolIndex assemble or recall call inside those same requests. In-process: the same calls without " +
      `HTTP, a minute before; with JSON.stringify of the packet, long tasks take ${ms(hub.inProcess.longWithJson.p50)} ms ` +
      "at p50. Ratios compare p50s.",
  ].join("\n");
}

/**
 * Each process's p50 and p95, and its p50 as a multiple of Node's alone, beside its target.
 * @param {any} startup
 */
function startupReport(startup) {
  if ("skipped" in startup) return `Not measured: ${startup.skipped}.`;
  /** @param {string} name @param {any} stats @param {string} target */
  const row = (name, stats, target) => [
    name,
    ms(stats.p50),
    ms(stats.p95),
    String(stats.n),
    `${(stats.p50 / startup.node.p50).toFixed(2)}x`,
    target,
  ];
  return table(
    ["process", "p50 ms", "p95 ms", "runs", "p50 / node", "target"],
    [
      row("node -e 0", startup.node, "-"),
      row("kxm --version", startup.kxm, "at most 1.5x"),
      row("kxm memory brief", startup.brief, "at most 2.5x"),
      row("kxm memory revision", startup.revision, "at most 2.5x"),
    ],
    ["l", "r", "r", "r", "r", "l"],
  );
}

/**
 * The whole report, as printed and as written to results/latest.md.
 * @param {{ mode: string, seed: number, machine: ReturnType<typeof machineInfo>, sizes: readonly { size: number, kxm: any, peers: any[] }[], hub?: any, startup?: any, cranfield: ReturnType<typeof cranfieldSummary> | null, identical: boolean, checks: number, seconds: number }} run
 */
export function markdownReport(run) {
  const lines = [
    `# KXM benchmark (${run.mode})`,
    "",
    `${machineLine(run.machine)}; seed ${run.seed}; ran ${run.seconds.toFixed(1)} s`,
    "",
    "## Targets",
    "",
    table(
      ["target", "measured", "holds"],
      targets(run.sizes, run.cranfield, run.hub ?? null).map((t) => [
        t.target,
        t.measured,
        t.holds === null ? "n/a" : t.holds ? "yes" : "**no**",
      ]),
      ["l", "l", "l"],
    ),
    "",
  ];
  for (const entry of run.sizes) {
    lines.push(`## ${count(entry.size)} items`, "", absoluteTable(entry), "");
    if (entry.peers.length > 0) lines.push(ratioTable(entry), "");
  }
  lines.push(
    "## KXM details",
    "",
    `identical: ${run.identical ? "yes" : "no"} (${run.checks} indexed results compared with the plain functions, byte for byte)`,
    "",
    detailsTable(run.sizes.map((entry) => entry.kxm)),
    "",
    "Where a packet's time goes (each phase's median over the requests, timed in a separate pass; score is the " +
      "scoring of the kinds the walk reaches and the count of the others' matches; sort is splitting a kind's " +
      "matched items into buckets and ordering them in chunks; fill is the first-fit walk, with the packet and " +
      "audit):",
    "",
    phasesTable(run.sizes.map((entry) => entry.kxm)),
    "",
  );
  if (run.hub) lines.push("## Hub on loopback", "", hubReport(run.hub), "");
  if (run.startup) lines.push("## Start-up", "", startupReport(run.startup), "");
  if (run.cranfield !== null) lines.push("## Cranfield", "", cranfieldReport(run.cranfield), "");
  return lines.join("\n");
}
