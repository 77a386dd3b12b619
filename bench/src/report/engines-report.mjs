// @ts-check
// The engines section: each route on SQLite and on PostgreSQL side by side, then 1, 2 and 4 hubs on one
// PostgreSQL, then `kxm hub serve --workers` at 1 and 2 on SQLite, with where the machine's CPU went during each.
import { count, ms, ratio, table } from "./format.mjs";

/** The routes as the report names them. */
const ROUTE_LABELS = /** @type {const} */ ({
  health: "GET /v1/health",
  contextLong: "POST /context, long tasks",
  recall: "POST /recall",
  state: "GET /state/:key",
  proposal: "POST /state/proposals",
});

/** The throughput loads as the report names them. */
const LOAD_LABELS = /** @type {const} */ ({
  contextLong: "long-task packets",
  mixed: "packets with 1 proposal in 8 requests",
});

/** @param {any} figures */
const failures = (figures) => figures.non2xx + figures.errors + figures.timeouts;

/** @param {number} cores */
const inCores = (cores) => cores.toFixed(2);

/** @param {any} f */
const latency = (f) => `${ms(f.p50)} / ${ms(f.p99)}`;

/**
 * One row per load and count of a throughput run: requests/s, against the first count, latency, and cores by party
 * (`extra` adds the columns after the hubs' own).
 * @param {Record<string, Record<string, any>>} byLoad
 * @param {readonly number[]} counts
 * @param {string} unit what a count counts, singular
 * @param {(f: any) => string[]} extra
 */
function loadRows(byLoad, counts, unit, extra) {
  return Object.entries(byLoad).flatMap(([load, byCount]) =>
    counts.map((n) => {
      const f = byCount[n];
      return [
        `${LOAD_LABELS[/** @type {keyof typeof LOAD_LABELS} */ (load)] ?? load}, ${n} ${unit}${n === 1 ? "" : "s"}`,
        count(Math.round(f.requestsPerSecond)),
        ratio(f.requestsPerSecond / byCount[/** @type {number} */ (counts[0])].requestsPerSecond),
        latency(f),
        inCores(f.cores.hubs),
        ...extra(f),
        inCores(f.cores.loadGenerator),
        inCores(f.cores.others),
        `${inCores(f.cores.machine)} of ${inCores(f.cores.capacity)}`,
        String(failures(f)),
      ];
    }),
  );
}

/** @param {any} engines */
export function enginesReport(engines) {
  if ("skipped" in engines) return `Not measured: ${engines.skipped}.`;
  const routeRows = Object.entries(engines.routes).map(([route, both]) => [
    ROUTE_LABELS[/** @type {keyof typeof ROUTE_LABELS} */ (route)] ?? route,
    latency(both.sqlite),
    latency(both.postgres),
    ratio(both.postgres.p50 / both.sqlite.p50),
    `${ms(both.sqlite.cpuPerRequestMs.hubs)} / ${ms(both.postgres.cpuPerRequestMs.hubs)}`,
    ms(both.postgres.cpuPerRequestMs.postgres),
    String(failures(both.sqlite) + failures(both.postgres)),
  ]);
  const throughputRows = loadRows(engines.throughput, engines.hubCounts, "hub", (f) => [
    inCores(f.cores.postgres),
  ]);
  const workerRows = loadRows(engines.workers, engines.workerCounts, "worker", () => []);
  const workersSection = [
    "",
    table(
      [
        "load",
        "requests/s",
        "vs 1 worker",
        "p50 / p99 ms",
        "hub, cores",
        "autocannon, cores",
        "other, cores",
        "machine busy, cores",
        "failed",
      ],
      workerRows,
      ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    `\`kxm hub serve\` of the built CLI on the SQLite file (the embedded default), with ` +
      `${engines.workerCounts.map((/** @type {number} */ n) => `\`--workers ${n}\``).join(" and ")} (one ` +
      "process; a node:cluster primary forking that many hub processes on one port), " +
      `${engines.connections} connections to its one address, ${engines.bursts} bursts of ${engines.burstSeconds} s ` +
      "per count, the two taking turns. The hub's cores are the server's processes together (the primary and its " +
      "workers).",
  ];
  return [
    table(
      [
        "route",
        "SQLite p50 / p99 ms",
        "PostgreSQL p50 / p99 ms",
        "PostgreSQL / SQLite, p50",
        "hub CPU per request ms, SQLite / PostgreSQL",
        "server CPU per request ms",
        "failed",
      ],
      routeRows,
      ["l", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    `${count(engines.size)} journal records and one promoted state key, the same rows in a SQLite file and in ` +
      "a PostgreSQL database (copied with `copySqliteToPostgres`); two hubs in one process, one per engine, each " +
      `route driven by autocannon with 1 connection for ${engines.bursts} bursts of ${engines.burstSeconds} s per ` +
      "engine, the engines taking turns. The PostgreSQL server runs at its default settings (every commit is " +
      "flushed to disk); the SQLite file runs in WAL mode with `synchronous=NORMAL`, which does not flush each " +
      "commit. Latencies are each response's own round trip; CPU is read from /proc around every burst (the " +
      "server's with all its backends). Proposals go to keys of their own, so each is a new pending value.",
    "",
    table(
      [
        "load",
        "requests/s",
        "vs 1 hub",
        "p50 / p99 ms",
        "hubs, cores",
        "PostgreSQL, cores",
        "autocannon, cores",
        "other, cores",
        "machine busy, cores",
        "failed",
      ],
      throughputRows,
      ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    `${engines.hubCounts.join(", ")} \`kxm hub serve\` processes of the built CLI on one PostgreSQL database ` +
      `(a copy of the same rows), ${engines.connections} connections in all spread evenly across the hubs by one ` +
      `autocannon process, ${engines.bursts} bursts of ${engines.burstSeconds} s per hub count, the counts taking ` +
      "turns. Every hub was started before the first burst; a hub not in a burst idles on its LISTEN connection. " +
      `In the mixed load one request in ${engines.mixedWriteEvery} is a state proposal, after which every hub ` +
      "catches its pool up from the change feed before its next packet. Cores: CPU time per second of the burst, " +
      "by party; other is whatever else the machine ran (the bench's own process, the kernel).",
    ...workersSection,
  ].join("\n");
}
