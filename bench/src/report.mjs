// @ts-check
// The Markdown report: a machine line, the main table, and a table of details.
import os from "node:os";

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
export function machineLine(machine) {
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

/** @param {readonly SizeResult[]} results */
export function mainTable(results) {
  return table(
    [
      "pool",
      "build ms",
      "update µs",
      "assemble p50 ms",
      "assemble p99 ms",
      "plain p50 ms",
      "plain / indexed",
      "recall p50 ms",
      "recall p99 ms",
      "bytes/item",
    ],
    results.map((r) => [
      count(r.size),
      ms(r.buildMs),
      micros(r.update.p50Us),
      ms(r.assemble.p50),
      ms(r.assemble.p99),
      ms(r.plain.p50),
      `${count(r.speedup)}×`,
      ms(r.recall.p50),
      ms(r.recall.p99),
      bytes(r.indexBytesPerItem),
    ]),
    ["r", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
  );
}

/** @param {readonly SizeResult[]} results */
export function detailsTable(results) {
  /** @param {{ p50: number, p99: number }} s */
  const pair = (s) => `${ms(s.p50)} / ${ms(s.p99)}`;
  return table(
    [
      "pool",
      "pool SHA-256",
      "planner p50 / p99",
      "implementer p50 / p99",
      "2,000-token p50 / p99",
      "eligible / matched / selected",
      "recall words / phrase / miss p50",
      "update p99 µs",
      "pool bytes/item",
      "samples (packets, plain, recall)",
    ],
    results.map((r) => [
      count(r.size),
      `\`${r.fingerprint}\``,
      pair(/** @type {{ p50: number, p99: number }} */ (r.assembleByRole.planner)),
      pair(/** @type {{ p50: number, p99: number }} */ (r.assembleByRole.implementer)),
      pair(r.assembleSmallBudget),
      `${count(r.medianCandidates)} / ${count(r.medianMatched)} / ${count(r.medianSelected)}`,
      ["words", "phrase", "miss"].map((type) => ms(r.recallByType[type]?.p50 ?? Number.NaN)).join(" / "),
      micros(r.update.p99Us),
      bytes(r.poolBytesPerItem),
      `${count(r.assemble.n)}, ${count(r.plain.n)}, ${count(r.recall.n)}`,
    ]),
    ["r", "l", "r", "r", "r", "r", "r", "r", "r", "r"],
  );
}

/**
 * The whole report, as printed and as written to results/latest.md.
 * @param {{ mode: string, seed: number, machine: ReturnType<typeof machineInfo>, results: readonly SizeResult[], identical: boolean, checks: number, seconds: number, peakRssMB: number }} run
 */
export function markdownReport(run) {
  return [
    `# KXM arbiter benchmark (${run.mode})`,
    "",
    `${machineLine(run.machine)}; seed ${run.seed}; ran ${run.seconds.toFixed(1)} s, peak RSS ${run.peakRssMB} MB`,
    "",
    mainTable(run.results),
    "",
    `identical: ${run.identical ? "yes" : "no"} (${run.checks} indexed results compared with the plain functions, byte for byte)`,
    "",
    "Details (medians of the default-budget packets; times in ms unless named):",
    "",
    detailsTable(run.results),
    "",
  ].join("\n");
}
