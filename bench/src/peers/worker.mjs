// @ts-check
// One system's figures, in a process of its own. The parent forks this file and sends one job; the worker
// regenerates the same seeded pool, tasks and queries (or loads Cranfield), measures, and sends the figures back.
//   { system: "kxm" | <peer name>, job: { type: "pool", size, mode } | { type: "cranfield", fielded? } }
import { indexedText, PoolIndex } from "@kxm/arbiter";
import { LIMITS } from "@kxm/contract";
import { loadCranfield } from "../cranfield.mjs";
import { benchEngines } from "../engines.mjs";
import { benchHub } from "../hub.mjs";
import { collect, median, now, summarize } from "../measure.mjs";
import { generateEdits, generatePool, generateQueries, generateTasks, PROJECT } from "../pool.mjs";
import { loadedCopy, readPoolFile } from "../pool-file.mjs";
import { benchSize, FULL_PLAN, SMOKE_PLAN } from "../run.mjs";
import { adapterNamed, FIELDED } from "./adapters.mjs";

/** @typedef {import("./adapters.mjs").Doc} Doc */

/** A peer's top-k for a task: as many as a packet of the default budget usually holds. */
export const TASK_LIMIT = 100;
/** Recall's default limit. */
export const RECALL_LIMIT = 25;

/** Heap, array buffers and other memory V8 knows of (native buffers a library allocates). */
function memoryInUse() {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10_000) / 10_000;

/** @param {number[]} samples */
function stats(samples) {
  const s = summarize(samples);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95), p99: round(s.p99) };
}

/**
 * How much a peer is asked to do at a pool size: everything at 1k and 10k; at 100k, where a long query takes
 * some peers a second, fewer long tasks.
 * @param {string} mode
 * @param {number} size
 */
function peerPlan(mode, size) {
  if (mode === "smoke")
    return {
      builds: 1,
      long: 10,
      short: 10,
      queries: 20,
      updates: 20,
      warmup: 3,
      phaseMs: 1_000,
      minSamples: 5,
    };
  return {
    // A phase stops early once it has run this long and holds at least MIN_SAMPLES samples: a long query takes
    // some peers a second or more at 100k, and the full run must end in minutes.
    phaseMs: mode === "quick" ? 3_000 : 8_000,
    // The fewest samples a phase stops at when it runs out of time (a long query takes MiniSearch seconds at 100k).
    minSamples: size >= 50_000 || (mode === "quick" && size >= 5_000) ? 5 : size >= 5_000 ? 10 : 20,
    builds: size <= 2_000 ? 5 : size <= 20_000 ? 3 : 1,
    long: size >= 50_000 ? 60 : 200,
    short: 200,
    queries: 200,
    updates: size >= 50_000 ? 50 : 200,
    warmup: size >= 50_000 ? 5 : 20,
  };
}

/**
 * @param {string} name
 * @param {{ size: number, mode: string, poolFile?: string, skip?: string[] }} job
 */
function benchPeer(name, job) {
  const { size, mode, poolFile } = job;
  const adapter = adapterNamed(name);
  const plan = peerPlan(mode, size);
  // The parent writes each pool once (generating 100k items takes a while); the same seed gives the same bytes.
  const items = poolFile === undefined ? loadedCopy(generatePool(size)) : readPoolFile(poolFile);
  /** @type {Doc[]} */
  const docs = items.map((/** @type {import("@kxm/contract").ContextItem} */ item) => ({
    id: item.id,
    text: indexedText(item),
  }));
  const { long, short } = generateTasks(Math.max(plan.long, plan.short));
  const queries = generateQueries(items, plan.queries);

  const buildSamples = [];
  let bytes = 0;
  /** @type {any} */
  let index;
  const buildsStart = now();
  for (let i = plan.builds; i > 0; i -= 1) {
    // A slow builder (seconds per build at 10k) is timed fewer times.
    if (buildSamples.length > 0 && now() - buildsStart > plan.phaseMs) break;
    index = undefined;
    const before = memoryInUse();
    const start = now();
    index = adapter.build(docs);
    buildSamples.push(now() - start);
    bytes = memoryInUse() - before + (adapter.nativeBytes?.(index) ?? 0);
  }

  /** @param {readonly string[]} texts @param {number} limit */
  const timed = (texts, limit) => {
    // As settle() does for KXM: collect first, then warm up, so the collection's after-effects are not timed.
    collect();
    const warmupStart = now();
    for (const text of texts.slice(0, plan.warmup)) {
      if (now() - warmupStart > plan.phaseMs / 4) break;
      adapter.search(index, text, limit);
    }
    /** @type {number[]} */
    const hits = [];
    /** @type {number[]} */
    const samples = [];
    const started = now();
    for (const text of texts) {
      if (samples.length >= plan.minSamples && now() - started > plan.phaseMs) break;
      const start = process.hrtime.bigint();
      const result = adapter.search(index, text, limit);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      hits.push(result.length);
    }
    return { ...stats(samples), medianHits: median(hits) };
  };
  /** Seconds each phase took, warm-up and collections included: where a slow run spends its time. */
  /** @type {Record<string, number>} */
  const phaseSeconds = { build: round((now() - buildsStart) / 1000) };
  let phaseStart = now();
  const lap = () => {
    const seconds = round((now() - phaseStart) / 1000);
    phaseStart = now();
    return seconds;
  };
  // A phase the parent predicts would take one query longer than a whole phase (from the smaller pool) is skipped.
  const skip = new Set(job.skip ?? []);
  const skipped = { n: 0, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, medianHits: 0, skipped: true };
  const longStats = skip.has("long") ? skipped : timed(long.slice(0, plan.long), TASK_LIMIT);
  phaseSeconds.long = lap();
  const shortStats = skip.has("short") ? skipped : timed(short.slice(0, plan.short), TASK_LIMIT);
  phaseSeconds.short = lap();
  const recallStats = timed(
    queries.map(({ query }) => query),
    RECALL_LIMIT,
  );

  phaseSeconds.recall = lap();
  let update;
  if (adapter.update !== undefined) {
    const { originals, variants } = generateEdits(items, plan.updates);
    const slotOf = new Map(items.map((/** @type {{ id: string }} */ item, i) => [item.id, i]));
    collect();
    // Time-capped like the query phases (one FlexSearch update takes tens of milliseconds at 10k).
    const started = now();
    /** @type {number[]} */
    const samples = [];
    for (const variant of variants) {
      if (samples.length >= plan.minSamples * 2 && now() - started > plan.phaseMs) break;
      const start = process.hrtime.bigint();
      adapter.update(
        index,
        { id: variant.id, text: indexedText(variant) },
        /** @type {number} */ (slotOf.get(variant.id)),
      );
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    update = {
      n: samples.length,
      p50Us: round(median(samples) * 1000),
      p99Us: round(summarize(samples).p99 * 1000),
    };
    void originals;
  }
  return {
    system: name,
    label: adapter.label,
    size,
    buildMs: round(median(buildSamples)),
    builds: buildSamples.length,
    update: update ?? null,
    long: longStats,
    short: shortStats,
    recall: recallStats,
    bytesPerItem: Math.round(bytes / size),
    phaseSeconds: { ...phaseSeconds, update: lap() },
  };
}

/**
 * The ranking of every Cranfield query (first 100 ids), and how long building and querying took. `fielded`: a
 * peer indexes title and abstract as two fields, and the system is named `<peer>:fields`.
 * @param {string} name
 * @param {boolean} fielded
 */
function cranfieldRun(name, fielded) {
  const cranfield = loadCranfield();
  const start = now();
  /** @type {(text: string) => string[]} */
  let search;
  if (name === "kxm" || name === "kxm-recall" || name === "kxm-english") {
    const index = new PoolIndex(
      cranfield.docs.map((doc) => ({
        id: doc.id,
        kind: /** @type {const} */ ("knowledge"),
        project: PROJECT,
        summary: doc.text,
        provenance: { sourceType: /** @type {const} */ ("external") },
        authority: /** @type {const} */ ("evidence"),
        confidence: /** @type {const} */ ("probable"),
      })),
      { analysis: name === "kxm-english" ? "english" : "standard" },
    );
    // "kxm" and "kxm-english" (the opt-in english analysis) rank as a packet does (every item has the same kind and
    // metadata, so the nine keys come down to BM25 descending, then id); "kxm-recall" as recall does, which puts
    // items holding the whole query text first.
    search =
      name !== "kxm-recall"
        ? (text) =>
            index
              .assemble({
                project: PROJECT,
                role: "cranfield",
                task: text,
                budgetTokens: LIMITS.maxBudgetTokens,
              })
              .audit.selectedIds.slice(0, 100)
        : (text) => index.recall({ project: PROJECT, query: text, limit: 100 }).items.map((item) => item.id);
  } else {
    const adapter = adapterNamed(name);
    if (fielded && !adapter.fieldable) throw new Error(`${name} does not index fields`);
    const index = adapter.build(cranfield.docs, fielded);
    search = (text) => adapter.search(index, text, 100);
  }
  const buildMs = now() - start;
  const queryStart = now();
  const rankings = cranfield.queries.map((query) => search(query.text));
  return {
    system: fielded ? `${name}${FIELDED}` : name,
    buildMs: round(buildMs),
    queryMs: round(now() - queryStart),
    rankings,
  };
}

// A worker whose parent has gone has no one to report to.
process.on("disconnect", () => process.exit(1));

process.once("message", async (/** @type {any} */ message) => {
  const { system, job } = message;
  /** @type {unknown} */
  let result;
  if (job.type === "hub") result = await benchHub(job);
  else if (job.type === "engines") result = await benchEngines(job);
  else if (job.type === "cranfield") result = cranfieldRun(system, job.fielded === true);
  else if (system === "kxm") {
    const plan = job.mode === "smoke" ? SMOKE_PLAN : FULL_PLAN;
    result = { system, label: "KXM", ...benchSize(job.size, generateTasks(plan.tasks), plan) };
  } else result = benchPeer(system, job);
  process.send?.(result, () => process.exit(0));
});
