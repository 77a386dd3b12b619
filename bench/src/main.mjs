// @ts-check
// `pnpm bench [--quick | --smoke] [--sizes 1000,5000] [--peers fts5,minisearch]`: KXM and its peers side by side.
// Every system runs in a process of its own (src/peers/worker.mjs), one after another, on the same seeded pools,
// tasks and queries, and on Cranfield. Prints a Markdown report and writes it with the raw figures to
// results/latest.md and results/latest.json.
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openBrowser } from "@kxm/browser";
import { benchBrowser, browserInputsMissing } from "./browser.mjs";
import { cranfieldInputsMissing, evaluate, loadCranfield } from "./cranfield.mjs";
import { enginesInputsMissing } from "./engines.mjs";
import { canCollect, now } from "./measure.mjs";
import { ADAPTERS, adapterNamed, FIELDED } from "./peers/adapters.mjs";
import { generatePool, SEED } from "./pool.mjs";
import { writePoolFile } from "./pool-file.mjs";
import { cranfieldSummary, machineInfo, markdownReport } from "./report.mjs";
import { benchStartup } from "./startup.mjs";

const USAGE =
  "usage: pnpm bench [--quick | --smoke] [--sizes 1000,10000] [--peers fts5,minisearch,... | none] [--out DIR]";
const MAX_SIZE = 1_000_000;
/** @type {Record<string, readonly number[]>} */
const DEFAULT_SIZES = { full: [1_000, 10_000, 100_000, 1_000_000], quick: [1_000, 10_000], smoke: [1_000] };
const PEER_NAMES = ADAPTERS.map((adapter) => adapter.name);
const here = dirname(fileURLToPath(import.meta.url));

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

/** @param {string} list */
function parsePeers(list) {
  const peers = list.split(",").map((part) => part.trim());
  const unknown = peers.filter((peer) => !PEER_NAMES.includes(peer));
  if (unknown.length > 0) usageError(`unknown peer ${unknown.join(", ")} (peers: ${PEER_NAMES.join(", ")})`);
  return peers;
}

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  let mode = "full";
  /** @type {readonly number[] | undefined} */
  let sizes;
  let peers = PEER_NAMES;
  let out = join(here, "..", "results");
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
    } else if (arg === "--peers" || arg.startsWith("--peers=")) {
      const value = arg === "--peers" ? argv[++i] : arg.slice("--peers=".length);
      peers = value === undefined || value === "" || value === "none" ? [] : parsePeers(value);
    } else if (arg === "--out" || arg.startsWith("--out=")) {
      const value = arg === "--out" ? argv[++i] : arg.slice("--out=".length);
      if (value === undefined || value === "") usageError("--out needs a directory");
      out = resolve(/** @type {string} */ (value));
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
    peers,
    out,
  };
}

const started = now();
/** @param {string} message */
function progress(message) {
  process.stderr.write(`${((now() - started) / 1000).toFixed(1).padStart(6)} s  ${message}\n`);
}

/**
 * Runs one job in a fresh process and resolves with what it reports.
 * @param {string} system
 * @param {object} job
 * @returns {Promise<any>}
 */
function runWorker(system, job) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, "peers", "worker.mjs"), {
      execArgv: ["--expose-gc", "--max-old-space-size=8192"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    /** @type {unknown} */
    let result;
    child.on("message", (message) => {
      result = message;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`${system} exited with ${code ?? signal} before reporting its figures`));
    });
    child.send({ system, job });
  });
}

/**
 * The largest pool already measured below `size`, and the peer's figures there: what the skips below predict from.
 * @param {readonly { size: number, peers: any[] }[]} done
 * @param {string} peer
 * @param {number} size
 */
function measuredBefore(done, peer, size) {
  const smaller = done.filter((entry) => entry.size < size).at(-1);
  return { smaller, before: smaller?.peers.find((result) => result.system === peer) };
}

/** One query predicted to take longer than this, from a smaller pool scaled linearly, skips the phase. */
const SKIP_QUERY_MS = 10_000;

/**
 * The query phases a peer would spend minutes on at `size`, predicted from its p50 at the largest smaller pool
 * already measured (query time grows about linearly with the pool): at 100k, a long query takes MiniSearch well
 * over a minute.
 * @param {readonly { size: number, peers: any[] }[]} done
 * @param {string} peer
 * @param {number} size
 */
function phasesTooSlow(done, peer, size) {
  const { smaller, before } = measuredBefore(done, peer, size);
  if (smaller === undefined || before === undefined) return [];
  return ["long", "short"].filter(
    (phase) => (before[phase]?.p50 ?? 0) * (size / smaller.size) > SKIP_QUERY_MS,
  );
}

/** A build predicted to take longer than this (from the smaller pool, scaled linearly) skips the peer at that size. */
const SKIP_BUILD_MS = 150_000;

/**
 * The predicted build time of a peer at `size` when it exceeds {@link SKIP_BUILD_MS}, from the largest smaller pool.
 * @param {readonly { size: number, peers: any[] }[]} done
 * @param {string} peer
 * @param {number} size
 */
function buildTooSlow(done, peer, size) {
  const { smaller, before } = measuredBefore(done, peer, size);
  if (smaller === undefined || before === undefined || !Number.isFinite(before.buildMs)) return undefined;
  const predicted = before.buildMs * (size / smaller.size);
  return predicted > SKIP_BUILD_MS ? predicted : undefined;
}

/**
 * An index predicted to hold more than this (bytes per item at the smaller pool times the pool) skips the peer: with
 * the pool and its texts beside it, the worker's 8 GB heap would not hold it.
 */
const SKIP_INDEX_BYTES = 4e9;

/**
 * The predicted size of a peer's index at `size` when it exceeds {@link SKIP_INDEX_BYTES}, from the largest
 * smaller pool.
 * @param {readonly { size: number, peers: any[] }[]} done
 * @param {string} peer
 * @param {number} size
 */
function indexTooLarge(done, peer, size) {
  const { before } = measuredBefore(done, peer, size);
  if (before === undefined || !Number.isFinite(before.bytesPerItem)) return undefined;
  const predicted = before.bytesPerItem * size;
  return predicted > SKIP_INDEX_BYTES ? predicted : undefined;
}

/** @param {string} system @param {number} size @param {string} reason */
function skippedPeer(system, size, reason) {
  const none = { n: 0, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, medianHits: 0, skipped: true };
  return {
    system,
    size,
    skipped: reason,
    buildMs: Number.NaN,
    update: null,
    long: none,
    short: none,
    recall: none,
    bytesPerItem: Number.NaN,
  };
}

const options = parseArgs(process.argv.slice(2));
// The browser figures need Debian's Chromium; only a smoke run goes on without it.
const browserMissing = browserInputsMissing();
if (browserMissing !== undefined && options.mode !== "smoke") {
  console.error(`bench: the browser figures cannot run: ${browserMissing}`);
  process.exit(2);
}
// Every input is checked before the first measurement: a run must not fail after minutes of work. Cranfield is kept
// with the bench (data/cranfield); only a smoke run goes on without it.
const cranfieldMissing = cranfieldInputsMissing();
if (cranfieldMissing !== undefined && options.mode !== "smoke") {
  console.error(`bench: the Cranfield collection cannot be read: ${cranfieldMissing}`);
  process.exit(2);
}
// The engines figures need Debian's PostgreSQL server binaries (the throwaway cluster the tests start) and the
// built CLI (`kxm hub serve`); only a smoke run goes on without them.
const enginesMissing = enginesInputsMissing();
if (enginesMissing !== undefined && options.mode !== "smoke") {
  console.error(`bench: the engines figures cannot run: ${enginesMissing}`);
  process.exit(2);
}
if (!canCollect)
  console.error("bench: run node with --expose-gc for steady memory figures (pnpm bench does)");
const machine = machineInfo();
mkdirSync(options.out, { recursive: true });
const partialFile = join(options.out, "partial.json");

/**
 * Writes what has been measured so far to `partial.json` beside the results, after each section: a run cut short
 * keeps every figure it took. The finished run replaces it with latest.md and latest.json.
 * @param {Record<string, unknown>} sections
 */
function keepPartial(sections) {
  writeFileSync(
    partialFile,
    `${JSON.stringify({ date: new Date().toISOString(), partial: true, mode: options.mode, seed: SEED, machine, ...sections }, null, 2)}\n`,
  );
}

/** @type {{ size: number, kxm: any, peers: any[] }[]} */
const sizes = [];
const scratch = mkdtempSync(join(tmpdir(), "kxm-bench-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
for (const size of options.sizes) {
  const label = `[${size.toLocaleString("en-US")}]`;
  progress(`${label} KXM`);
  const kxm = await runWorker("kxm", { type: "pool", size, mode: options.mode });
  const peers = [];
  if (options.peers.length > 0) {
    const poolFile = join(scratch, `pool-${size}.jsonl`);
    writePoolFile(poolFile, generatePool(size));
    for (const peer of options.peers) {
      progress(`${label} ${peer}`);
      const slowBuild = buildTooSlow(sizes, peer, size);
      if (slowBuild !== undefined) {
        progress(`${label} ${peer} skipped: its build is predicted at ${Math.round(slowBuild / 1000)} s`);
        peers.push(skippedPeer(peer, size, `build predicted at ${Math.round(slowBuild / 1000)} s`));
        continue;
      }
      const largeIndex = indexTooLarge(sizes, peer, size);
      if (largeIndex !== undefined) {
        const gb = (largeIndex / 1e9).toFixed(1);
        progress(`${label} ${peer} skipped: its index is predicted at ${gb} GB`);
        peers.push(skippedPeer(peer, size, `index predicted at ${gb} GB`));
        continue;
      }
      const skip = phasesTooSlow(sizes, peer, size);
      peers.push(await runWorker(peer, { type: "pool", size, mode: options.mode, poolFile, skip }));
    }
    rmSync(poolFile);
  }
  sizes.push({ size, kxm, peers });
  keepPartial({ sizes });
}

// The hub under autocannon, at 10k items (1k in a smoke run), and the CLI's start-up.
const hubSize = options.mode === "smoke" ? 1_000 : 10_000;
progress(`[hub] ${hubSize.toLocaleString("en-US")} items under autocannon`);
const hub = await runWorker("hub", { type: "hub", size: hubSize, mode: options.mode });
keepPartial({ sizes, hub });
/** @type {any} */
let engines = { skipped: enginesMissing ?? "" };
if (enginesMissing === undefined) {
  progress(
    `[engines] ${hubSize.toLocaleString("en-US")} items on SQLite and on PostgreSQL, then several hubs`,
  );
  engines = await runWorker("engines", { type: "engines", size: hubSize, mode: options.mode });
} else {
  progress(`[engines] skipped: ${enginesMissing}`);
}
keepPartial({ sizes, hub, engines });
progress("[start-up] node -e 0, kxm --version, kxm memory brief and kxm memory revision");
const startup = benchStartup(options.mode);
keepPartial({ sizes, hub, engines, startup });
/** @type {Awaited<ReturnType<typeof benchBrowser>> | { skipped: string }} */
let browser = { skipped: browserMissing ?? "" };
if (browserMissing === undefined) browser = await benchBrowser(options.mode, openBrowser, progress);
else progress(`[browser] skipped: ${browserMissing}`);
keepPartial({ sizes, hub, engines, startup, browser });

// Cranfield: every system in a smoke run too (the collection is small), unless the data is missing, which only a
// smoke run tolerates.
/** @type {ReturnType<typeof cranfieldSummary> | null} */
let cranfield = null;
if (cranfieldMissing === undefined) {
  const collection = loadCranfield();
  const systems = [];
  // Each peer over the summary KXM indexes and, when it can index fields, over title and abstract apart.
  const runs = [
    ...["kxm", "kxm-recall", "kxm-english"].map((system) => ({ system, fielded: false })),
    ...options.peers.flatMap((system) => [
      { system, fielded: false },
      ...(adapterNamed(system).fieldable ? [{ system, fielded: true }] : []),
    ]),
  ];
  for (const { system, fielded } of runs) {
    progress(`[cranfield] ${system}${fielded ? FIELDED : ""}`);
    const run = await runWorker(system, { type: "cranfield", fielded });
    systems.push({ ...run, perQuery: evaluate(collection, run.rankings), rankings: undefined });
  }
  cranfield = cranfieldSummary(systems);
} else {
  progress(`[cranfield] skipped: ${cranfieldMissing}`);
}

const identity = sizes.reduce(
  (sum, { kxm }) => ({
    checks: sum.checks + kxm.identity.checks,
    mismatches: sum.mismatches + kxm.identity.mismatches,
  }),
  { checks: 0, mismatches: 0 },
);
const seconds = (now() - started) / 1000;
const mode = options.custom ? `${options.mode}, sizes ${options.sizes.join(",")}` : options.mode;
const run = {
  mode,
  seed: SEED,
  machine,
  sizes,
  hub,
  engines,
  startup,
  browser,
  cranfield,
  identical: identity.mismatches === 0,
  checks: identity.checks,
  seconds,
};
const markdown = markdownReport(run);

console.log(`\n${markdown}`);
const resultsDir = options.out;
writeFileSync(join(resultsDir, "latest.md"), markdown);
writeFileSync(
  join(resultsDir, "latest.json"),
  `${JSON.stringify({ date: new Date().toISOString(), ...run, seconds: Math.round(seconds * 10) / 10 }, null, 2)}\n`,
);
rmSync(partialFile, { force: true });
console.log(`results written to ${join(resultsDir, "latest.md")} and latest.json (${seconds.toFixed(1)} s)`);
const failures = [];
if (!run.identical) failures.push("the index and the plain functions disagree");
if (cranfield !== null && !cranfield.winkEqual.holds)
  failures.push("wink-bm25 fed KXM's tokenizer ranks Cranfield differently from KXM");
if (failures.length > 0) {
  console.error(`bench: correctness failure: ${failures.join("; ")}`);
  process.exit(1);
}
