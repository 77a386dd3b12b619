// @ts-check
// One pool size, measured end to end: generate, build, assemble (indexed and plain), recall, update, memory, and
// the byte-identity check between the index and the plain functions.
import { assemblePacket, PoolIndex, recall } from "@kxm/arbiter";
import { collect, heapUsed, median, now, settle, summarize, timeEach } from "./measure.mjs";
import { checkItems, generateEdits, generatePool, generateQueries, PROJECT } from "./pool.mjs";
import { loadedCopy, poolFingerprint } from "./pool-file.mjs";

/** @typedef {import("@kxm/contract").ContextItem} ContextItem */
/** @typedef {import("@kxm/contract").ContextRequest} ContextRequest */

/**
 * How much work each figure gets.
 * @typedef {object} Plan
 * @property {number} tasks tasks used from the task set
 * @property {number} queries recall queries
 * @property {number} updates one-item replacements timed
 * @property {number} identityChecks plain packets compared byte for byte again after the edits
 * @property {(size: number) => number} builds index builds timed
 * @property {(size: number) => number} rounds passes over the request set
 * @property {(size: number) => number} plain plain `assemblePacket` calls timed
 * @property {(size: number) => number} warmup requests run before timing
 */

const ROLES = /** @type {const} */ (["planner", "implementer"]);
/** Above this many items, a pool gets one plain call in all: the timed one, whose packet is also compared. */
const HUGE = 200_000;

/** @type {Plan} */
export const FULL_PLAN = {
  tasks: 200,
  queries: 200,
  updates: 300,
  identityChecks: 4,
  builds: (size) => (size <= 2_000 ? 5 : size <= 20_000 ? 3 : 1),
  rounds: (size) => (size <= 20_000 ? 3 : 1),
  // Each plain call re-tokenizes the whole pool: about 10 s at 100k, so a million-item pool times one.
  plain: (size) => (size > HUGE ? 1 : Math.max(3, Math.min(30, Math.floor(100_000 / size)))),
  warmup: (size) => (size <= 20_000 ? 100 : 40),
};

/** @type {Plan} */
export const SMOKE_PLAN = {
  tasks: 20,
  queries: 20,
  updates: 50,
  identityChecks: 2,
  builds: () => 1,
  rounds: () => 1,
  plain: () => 3,
  warmup: () => 10,
};

/**
 * @param {readonly T[]} array
 * @param {number} count
 * @template T
 * @returns {T[]} `count` elements spread evenly over the array, first included
 */
function spread(array, count) {
  if (count >= array.length) return [...array];
  return Array.from(
    { length: count },
    (_, i) => /** @type {T} */ (array[Math.floor((i * array.length) / count)]),
  );
}

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10_000) / 10_000;

/** @param {{ n: number, p50: number, p95: number, p99: number }} stats */
const rounded = (stats) => ({
  n: stats.n,
  p50: round(stats.p50),
  p95: round(stats.p95),
  p99: round(stats.p99),
});

const startedAt = now();

/** @param {string} message */
function progress(message) {
  process.stderr.write(`${((now() - startedAt) / 1000).toFixed(1).padStart(6)} s  ${message}\n`);
}

/** Heap plus array buffers (the index keeps its per-request scratch in typed arrays). */
function memoryInUse() {
  const heap = heapUsed();
  return heap + process.memoryUsage().arrayBuffers;
}

/**
 * @param {number} size
 * @param {{ long: readonly string[], short: readonly string[] }} taskSet
 * @param {Plan} plan
 */
export function benchSize(size, taskSet, plan) {
  const label = `[${size.toLocaleString("en-US")}]`;
  progress(`${label} generating the pool`);
  const beforePool = memoryInUse();
  const generateStart = now();
  let generated = generatePool(size);
  const generateMs = now() - generateStart;
  const fingerprint = poolFingerprint(generated);
  /** @type {ContextItem[]} The pool as a caller holds it after loading it from JSON. */
  const items = loadedCopy(generated);
  generated = [];
  const poolBytes = memoryInUse() - beforePool;
  checkItems(items);
  // Open contradictions, as a hub passes those of a state key with competing values: three proposed state items,
  // so that every timed packet ranks by its first key too. The plain calls get the same.
  const contradictionIds = items
    .filter((item) => item.kind === "state" && item.status === "proposed")
    .slice(0, 3)
    .map((item) => item.id);
  const packetOptions = { contradictionIds };

  progress(`${label} building the index`);
  // Each build is timed alone; the last one is kept, and the heap it added after a full collection is its size.
  const buildSamples = [];
  let indexBytes = 0;
  /** @type {PoolIndex | undefined} */
  let built;
  for (let i = plan.builds(size); i > 0; i -= 1) {
    built = undefined;
    const before = memoryInUse();
    const start = now();
    built = new PoolIndex(items);
    buildSamples.push(now() - start);
    indexBytes = memoryInUse() - before;
  }
  const index = /** @type {PoolIndex} */ (built);

  /** @param {readonly string[]} tasks @returns {ContextRequest[]} */
  const requestsFor = (tasks) =>
    tasks.slice(0, plan.tasks).flatMap((task) => ROLES.map((role) => ({ project: PROJECT, role, task })));
  const requests = requestsFor(taskSet.long);
  const smallRequests = requestsFor(taskSet.short);
  const queries = generateQueries(items, plan.queries);
  const recallRequests = queries.map(({ query }) => ({ project: PROJECT, query }));

  progress(`${label} indexed packets and recall`);
  const warmup = plan.warmup(size);
  for (const request of [...requests.slice(0, warmup), ...smallRequests.slice(0, warmup)])
    index.assemble(request, packetOptions);
  for (const request of recallRequests.slice(0, warmup)) index.recall(request);

  /** @type {number[]} */
  const matched = [];
  /** @type {number[]} */
  const candidates = [];
  /** @type {number[]} */
  const selected = [];
  /** @type {Record<string, number[]>} */
  const byRole = Object.fromEntries(ROLES.map((role) => [role, []]));
  /** @type {number[]} */
  const assembleSamples = [];
  /** @param {ContextRequest} request */
  const assembleRequest = (request) => index.assemble(request, packetOptions);
  /** @param {{ query: string }} query */
  const recallQuery = ({ query }) => index.recall({ project: PROJECT, query });
  for (let pass = plan.rounds(size); pass > 0; pass -= 1) {
    settle(requests, assembleRequest);
    const samples = timeEach(requests, assembleRequest, (packet, request, ms) => {
      matched.push(packet.audit.relevance.matchedCandidates);
      candidates.push(packet.audit.candidateCount);
      selected.push(packet.audit.selectedIds.length);
      byRole[request.role]?.push(ms);
    });
    assembleSamples.push(...samples);
  }
  const smallSamples = [];
  for (let pass = plan.rounds(size); pass > 0; pass -= 1) {
    settle(smallRequests, assembleRequest);
    smallSamples.push(...timeEach(smallRequests, assembleRequest));
  }
  /** @type {Record<string, number[]>} */
  const recallByType = { words: [], phrase: [], substring: [], miss: [] };
  const recallSamples = [];
  for (let pass = plan.rounds(size); pass > 0; pass -= 1) {
    settle(queries, recallQuery);
    const samples = timeEach(queries, recallQuery, (_, { type }, ms) => recallByType[type]?.push(ms));
    recallSamples.push(...samples);
  }

  // The yardstick for recall: a bare scan for the lowercased query in every item's lowercased summary, over text
  // lowercased ahead of time (a scan that holds a lowercased copy of every summary), with no ranking at all.
  const lowered = items.map((item) => item.summary.toLowerCase());
  /** @param {{ query: string }} query */
  const scan = ({ query }) => {
    const needle = query.trim().toLowerCase();
    let found = 0;
    for (const text of lowered) if (text.includes(needle)) found += 1;
    return found;
  };
  const scanSamples = [];
  for (let pass = plan.rounds(size); pass > 0; pass -= 1) {
    settle(queries, scan);
    scanSamples.push(...timeEach(queries, scan));
  }

  // Where a packet's time goes, in a pass of its own (reading the clock inside the call is not free): the median
  // of each phase over the long and over the short requests.
  /** @param {readonly ContextRequest[]} set */
  const phaseMedians = (set) => {
    /** @type {Record<"tokenizeMs" | "scoreMs" | "sortMs" | "fillMs", number[]>} */
    const samples = { tokenizeMs: [], scoreMs: [], sortMs: [], fillMs: [] };
    for (const request of set) {
      const phases = { tokenizeMs: 0, scoreMs: 0, sortMs: 0, fillMs: 0 };
      index.assemble(request, { ...packetOptions, phases, now: () => performance.now() });
      for (const key of /** @type {const} */ (["tokenizeMs", "scoreMs", "sortMs", "fillMs"]))
        samples[key].push(phases[key]);
    }
    return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, round(median(values))]));
  };
  collect();
  const phases = { long: phaseMedians(requests), short: phaseMedians(smallRequests) };

  progress(`${label} plain assemblePacket`);
  const plainRequests = spread(requests, plan.plain(size));
  // Warm-up plain calls: three on small pools, one on large ones, none on huge ones (the timed call is their one).
  const plainWarmups = size <= 20_000 ? 3 : size > HUGE ? 0 : 1;
  for (const request of plainRequests.slice(0, plainWarmups)) assemblePacket(items, request, packetOptions);
  collect();
  /** @type {Map<ContextRequest, string>} */
  const plainPackets = new Map();
  const plainSamples = timeEach(
    plainRequests,
    (request) => assemblePacket(items, request, packetOptions),
    (packet, request) => plainPackets.set(request, JSON.stringify(packet)),
  );
  let checks = 0;
  let mismatches = 0;
  /** @param {string} expected @param {string} actual */
  const compare = (expected, actual) => {
    checks += 1;
    if (expected !== actual) mismatches += 1;
  };
  for (const [request, packet] of plainPackets)
    compare(packet, JSON.stringify(index.assemble(request, packetOptions)));

  progress(`${label} one-item updates`);
  const { originals, variants } = generateEdits(items, plan.updates);
  collect();
  const updateSamples = timeEach(variants, (variant) => index.replace(variant));
  for (const original of originals) index.replace(original);

  // After the edits and their undoing, the index must still give the plain functions' bytes.
  for (const request of [...plainPackets.keys()].slice(0, plan.identityChecks)) {
    compare(
      /** @type {string} */ (plainPackets.get(request)),
      JSON.stringify(index.assemble(request, packetOptions)),
    );
  }
  const shortCheck = /** @type {ContextRequest} */ (smallRequests[smallRequests.length - 1]);
  const longCheck = /** @type {ContextRequest} */ (requests[requests.length - 1]);
  // Each plain call re-tokenizes the pool (about 10 s at 100k): large pools get one extra check, huge pools none
  // beyond their timed call.
  const large = size >= 50_000;
  const plainChecks = [
    { ...shortCheck, budgetTokens: 2_000 },
    shortCheck,
    { ...longCheck, budgetTokens: 2_000 },
  ];
  const plainCheckCount = size > HUGE ? 0 : large ? 1 : plainChecks.length;
  for (const request of plainChecks.slice(0, plainCheckCount)) {
    compare(
      JSON.stringify(assemblePacket(items, request, packetOptions)),
      JSON.stringify(index.assemble(request, packetOptions)),
    );
  }
  for (const type of large ? ["phrase"] : ["words", "phrase", "substring", "miss"]) {
    const at = queries.findIndex((query) => query.type === type);
    const request = recallRequests[at];
    if (request !== undefined)
      compare(JSON.stringify(recall(items, request)), JSON.stringify(index.recall(request)));
  }

  const assemble = summarize(assembleSamples);
  const plain = summarize(plainSamples);
  const result = {
    size,
    fingerprint,
    generateMs: round(generateMs),
    buildMs: round(median(buildSamples)),
    builds: buildSamples.length,
    update: {
      n: updateSamples.length,
      p50Us: round(median(updateSamples) * 1000),
      p99Us: round(summarize(updateSamples).p99 * 1000),
    },
    assemble: rounded(assemble),
    assembleByRole: Object.fromEntries(ROLES.map((role) => [role, rounded(summarize(byRole[role] ?? []))])),
    assembleShort: rounded(summarize(smallSamples)),
    phases,
    plain: rounded(plain),
    speedup: Math.round((plain.p50 / assemble.p50) * 10) / 10,
    recall: rounded(summarize(recallSamples)),
    substringScan: rounded(summarize(scanSamples)),
    recallByType: Object.fromEntries(
      Object.entries(recallByType).map(([type, samples]) => [type, rounded(summarize(samples))]),
    ),
    medianCandidates: median(candidates),
    medianMatched: median(matched),
    medianSelected: median(selected),
    poolBytesPerItem: Math.round(poolBytes / size),
    indexBytesPerItem: Math.round(indexBytes / size),
    identity: { checks, mismatches },
  };
  progress(
    `${label} done: assemble p50 ${assemble.p50.toFixed(3)} ms, plain p50 ${plain.p50.toFixed(1)} ms, ` +
      `identical ${mismatches === 0 ? "yes" : "NO"}`,
  );
  return result;
}

/** @typedef {ReturnType<typeof benchSize>} SizeResult */
