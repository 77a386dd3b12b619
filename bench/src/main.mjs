// @ts-check
// `pnpm bench [--quick | --smoke] [--sizes 1000,5000]`: times the arbiter over deterministic pools, prints a
// Markdown table, and writes it with the raw figures to results/latest.md and results/latest.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { canCollect, now } from "./measure.mjs";
import { generateTasks, SEED } from "./pool.mjs";
import { machineInfo, markdownReport } from "./report.mjs";
import { benchSize, FULL_PLAN, SMOKE_PLAN } from "./run.mjs";

const USAGE = "usage: pnpm bench [--quick | --smoke] [--sizes 1000,10000]";
const MAX_SIZE = 1_000_000;
/** @type {Record<string, readonly number[]>} */
const DEFAULT_SIZES = { full: [1_000, 10_000, 100_000], quick: [1_000, 10_000], smoke: [1_000] };

/** @param {string} message */
function usageError(message) {
  console.error(`bench: ${message}; ${USAGE}`);
  process.exit(2);
}

/** @param {string} list */
function parseSizes(list) {
  const sizes = list.split(",").map((part) => part.trim());
  if (sizes.some((part) => !/^[1-9][0-9]*$/.test(part) || Number(part) > MAX_SIZE)) {
    usageError(`--sizes takes pool sizes from 1 to ${MAX_SIZE.toLocaleString("en-US")} separated by commas`);
  }
  return sizes.map(Number);
}

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  let mode = "full";
  /** @type {readonly number[] | undefined} */
  let sizes;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = /** @type {string} */ (argv[i]);
    if (arg === "--") continue; // package managers may pass the separator through
    if (arg === "--quick" || arg === "--smoke") {
      if (mode !== "full") usageError(`${arg} cannot be combined with --${mode}`);
      mode = arg.slice(2);
    } else if (arg === "--sizes" || arg.startsWith("--sizes=")) {
      const value = arg === "--sizes" ? argv[++i] : arg.slice("--sizes=".length);
      if (value === undefined || value === "") usageError("--sizes needs a list such as 1000,5000");
      sizes = parseSizes(/** @type {string} */ (value));
    } else if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else {
      usageError(`unknown argument ${arg}`);
    }
  }
  return {
    mode,
    sizes: sizes ?? /** @type {readonly number[]} */ (DEFAULT_SIZES[mode]),
    custom: sizes !== undefined,
  };
}

const options = parseArgs(process.argv.slice(2));
const plan = options.mode === "smoke" ? SMOKE_PLAN : FULL_PLAN;
if (!canCollect)
  console.error("bench: run node with --expose-gc for steady memory figures (pnpm bench does)");

const started = now();
const machine = machineInfo();
const tasks = generateTasks(plan.tasks);
const results = options.sizes.map((size) => benchSize(size, tasks, plan));
const checks = results.reduce((sum, r) => sum + r.identity.checks, 0);
const identical = results.every((r) => r.identity.mismatches === 0);
const seconds = (now() - started) / 1000;
const mode = options.custom ? `${options.mode}, sizes ${options.sizes.join(",")}` : options.mode;
const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
const run = { mode, seed: SEED, machine, results, identical, checks, seconds, peakRssMB };
const markdown = markdownReport(run);

console.log(`\n${markdown}`);
const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, "latest.md"), markdown);
writeFileSync(
  join(resultsDir, "latest.json"),
  `${JSON.stringify({ date: new Date().toISOString(), ...run, seconds: Math.round(seconds * 10) / 10 }, null, 2)}\n`,
);
console.log(`results written to bench/results/latest.md and latest.json (${seconds.toFixed(1)} s)`);
if (!identical) {
  console.error("bench: the index and the plain functions disagree: a correctness failure");
  process.exit(1);
}
