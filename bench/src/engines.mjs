// @ts-check
// The hub on its two engines, and several hubs on one PostgreSQL. One throwaway PostgreSQL cluster (the tests' own,
// from @kxm/test-support) and one SQLite file seeded as the hub section seeds its store, plus one promoted state
// key; the file is copied into two PostgreSQL databases (copySqliteToPostgres, so every engine holds the same rows).
//   Engines: two real hubs in this process (buildHub, pino logging to a file each), one on the SQLite file and one
//   on the first database, each route driven by autocannon with one connection, the two hubs taking turns in short
//   bursts (each going first in every other pair, as the hub section does) so that the machine's drift does not
//   decide the ratio. This process's CPU and the PostgreSQL server's are read around every burst.
//   Hubs: 1, 2 and 4 `kxm hub serve` processes of the built CLI on the second database, each on its own port, with
//   8 connections in all spread evenly across the hubs by one autocannon process, the hub counts taking turns in
//   bursts the same way; the hubs', the server's, autocannon's and the whole machine's CPU are read around each.
//   Workers: `kxm hub serve` and `kxm hub serve --workers 2` of the built CLI on the SQLite file (the embedded
//   default), one address each, 8 connections, the two taking turns in bursts; the CPU of each server with its
//   worker processes is read around each.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHub } from "@kxm/hub";
import { copySqliteToPostgres, openPostgresStore, openStore } from "@kxm/state-store";
import { createDatabase, postgresBinDir, startPostgres } from "@kxm/test-support/postgres";
import pino from "pino";
import { machineCpuMs, processCpuMs, serverCpuMs } from "./cpu.mjs";
import { ADMIN_TOKEN, ROLE, seedHubStore } from "./hub.mjs";
import { BURST_SECONDS, COUNTER, cannon, idle, pooled } from "./load.mjs";
import { now } from "./measure.mjs";
import { generateQueries, generateTasks, PROJECT } from "./pool.mjs";
import { CLI, CLI_BUILT } from "./startup.mjs";

/** The two engines, in the order of the first pair of bursts. */
const ENGINES = /** @type {const} */ (["sqlite", "postgres"]);
/** The state key every store holds one promoted value of. */
const STATE_KEY = "release.branch";
/** The connections of the throughput runs, in all, whatever the number of hubs. */
const CONNECTIONS = 8;
/** The worker counts of `kxm hub serve --workers` measured on the SQLite file, in the order of the first pair. */
const WORKER_COUNTS = /** @type {const} */ ([1, 2]);
/** Of every this many requests of the mixed load, one is a state proposal. */
const MIXED_WRITE_EVERY = 8;

/** @param {number} value */
const round = (value) => Math.round(value * 1000) / 1000;

/**
 * The hub's requests, as autocannon sends them: one agent key, the seeded tasks and needles, and state proposals.
 * Each proposal goes to a key no other request names (the burst and the load generator's count are in it), so
 * that every proposal is a new pending value of a key of its own: a key proposed twice would be an open
 * contradiction, and a run's packets would carry more of them burst after burst. The pool still grows by one state
 * item per proposal, as it does under any writer.
 * @param {string} key
 * @param {readonly object[]} items
 */
function requestsOf(key, items) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const tasks = generateTasks(50);
  const queries = generateQueries(/** @type {any} */ (items), 50).map(({ query }) => query);
  /** @param {string} path @param {readonly object[]} bodies */
  const posts = (path, bodies) =>
    bodies.map((body) => ({ method: "POST", path, headers, body: JSON.stringify(body) }));
  const project = `/v1/projects/${PROJECT}`;
  /** A proposal template: the load generator numbers each one it sends (cannon.mjs), within `burst`. */
  const proposal = (/** @type {number} */ burst) =>
    posts(`${project}/state/proposals`, [
      {
        key: `bench.write.${burst}.${COUNTER}`,
        summary: `The bench proposes value ${COUNTER} of burst ${burst} for this key`,
        authority: "evidence",
        confidence: "probable",
        evidenceRefs: [`bench:write:${burst}:${COUNTER}`],
      },
    ]);
  const context = posts(
    `${project}/context`,
    tasks.long.map((task) => ({ role: ROLE, task })),
  );
  return {
    health: () => [{ method: "GET", path: "/v1/health" }],
    contextLong: () => context,
    recall: () =>
      posts(
        `${project}/recall`,
        queries.map((query) => ({ query })),
      ),
    state: () => [{ method: "GET", path: `${project}/state/${STATE_KEY}`, headers }],
    proposal,
    // Long-task packets with one proposal in every MIXED_WRITE_EVERY requests: every write makes every hub
    // catch its pool up before its next packet.
    mixed: (burst) => {
      const [write] = proposal(burst);
      const packets = context.length - (context.length % (MIXED_WRITE_EVERY - 1));
      return Array.from({ length: (packets / (MIXED_WRITE_EVERY - 1)) * MIXED_WRITE_EVERY }, (_, i) =>
        i % MIXED_WRITE_EVERY === MIXED_WRITE_EVERY - 1
          ? /** @type {object} */ (write)
          : /** @type {object} */ (context[i - Math.floor(i / MIXED_WRITE_EVERY)]),
      );
    },
  };
}

/** The routes measured on both engines, in order: the write last, so that every read meets the seeded pool. */
const ROUTES = /** @type {const} */ (["health", "contextLong", "recall", "state", "proposal"]);

/**
 * A hub process of the built CLI on the database `database` names (KXM_DATABASE_URL or KXM_DB_PATH), on a port of
 * its own, logging to a file at `info` as a served hub does, with `args` after `kxm hub serve`; resolves once it
 * answers with its URL.
 * @param {Record<string, string>} database
 * @param {string} dir
 * @param {string} name
 * @param {readonly string[]} [args]
 * @returns {Promise<{ url: string, pid: number, stop: () => Promise<void> }>}
 */
function startHubProcess(database, dir, name, args = []) {
  const logFile = join(dir, `hub-${name}.log`);
  const log = openSync(logFile, "w");
  const child = spawn(process.execPath, [CLI, "hub", "serve", "--port", "0", "--json", ...args], {
    cwd: dir,
    env: {
      ...process.env,
      ...database,
      KXM_HOST: "127.0.0.1",
      KXM_AUTH_TOKEN: ADMIN_TOKEN,
      KXM_RATE_LIMIT: "1000000",
      KXM_LOG_LEVEL: "info",
      KXM_SHUTDOWN_GRACE_MS: "1000",
    },
    stdio: ["ignore", "pipe", log],
  });
  closeSync(log);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = "";
    let failed = false;
    const fail = (/** @type {string} */ why) => {
      if (failed) return;
      failed = true;
      stop().then(() =>
        reject(new Error(`kxm hub serve ${why}: ${readFileSync(logFile, "utf8").trim().split("\n").at(-1)}`)),
      );
    };
    const timer = setTimeout(() => fail("did not answer within 60 s"), 60_000);
    let answered = false;
    // With --json, stdout holds one JSON document, {url}, printed over several lines once the hub listens.
    child.stdout.on("data", (chunk) => {
      out += chunk;
      /** @type {unknown} */
      let url;
      try {
        url = JSON.parse(out).url;
      } catch {
        return; // not all of it yet
      }
      answered = true;
      clearTimeout(timer);
      if (typeof url === "string") resolve({ url, pid: /** @type {number} */ (child.pid), stop });
      else fail(`printed ${out.trim()} instead of {url}`);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (!answered) fail(`exited with ${code ?? signal}`);
    });
  });
}

/**
 * The CPU each party used during a burst, sampled as autocannon starts and once it has reported.
 * @param {{ hubs: () => number, postgres: () => number }} readers
 */
function cpuWindow(readers) {
  /** @type {{ at: number, hubs: number, postgres: number, machine: { busyMs: number, totalMs: number } } | undefined} */
  let start;
  // The hubs are read last at the start and first at the end: in the engines' runs they are this process, and
  // reading the server's processes from /proc is work of its own.
  return {
    onStart: () => {
      const machine = machineCpuMs();
      const postgres = readers.postgres();
      start = { at: now(), hubs: readers.hubs(), postgres, machine };
    },
    /** @param {number} loadGeneratorMs what autocannon's process reported for itself */
    end: (loadGeneratorMs) => {
      const hubs = readers.hubs();
      const end = { at: now(), hubs, postgres: readers.postgres(), machine: machineCpuMs() };
      const from = start ?? end;
      return {
        wallMs: end.at - from.at,
        hubsMs: end.hubs - from.hubs,
        postgresMs: end.postgres - from.postgres,
        loadGeneratorMs,
        machineBusyMs: end.machine.busyMs - from.machine.busyMs,
        machineTotalMs: end.machine.totalMs - from.machine.totalMs,
      };
    },
  };
}

/**
 * One side's bursts summed: figures pooled over its responses, CPU per request and in cores (CPU ms per ms).
 * @param {readonly any[]} runs
 * @param {readonly ReturnType<ReturnType<typeof cpuWindow>["end"]>[]} windows
 */
function summarized(runs, windows) {
  const figures = pooled(runs);
  /** @param {keyof (typeof windows)[number]} key */
  const sum = (key) => windows.reduce((n, window) => n + window[key], 0);
  const wall = sum("wallMs");
  const perRequest = (/** @type {number} */ ms) => round(ms / figures.total);
  const inCores = (/** @type {number} */ ms) => round(ms / wall);
  const machine = sum("machineBusyMs");
  const others = machine - sum("hubsMs") - sum("postgresMs") - sum("loadGeneratorMs");
  return {
    ...figures,
    cpuPerRequestMs: {
      hubs: perRequest(sum("hubsMs")),
      postgres: perRequest(sum("postgresMs")),
      loadGenerator: perRequest(sum("loadGeneratorMs")),
    },
    cores: {
      hubs: inCores(sum("hubsMs")),
      postgres: inCores(sum("postgresMs")),
      loadGenerator: inCores(sum("loadGeneratorMs")),
      // Everything else the machine ran meanwhile (other users' work; this process and the kernel's threads).
      others: inCores(Math.max(0, others)),
      machine: inCores(machine),
      // What the machine has: its cores, as /proc/stat counts them.
      capacity: inCores(sum("machineTotalMs")),
    },
  };
}

/**
 * Bursts over `sides`, each side's turn going first in every other round (a longer list rotates by one each round).
 * @template {string} S
 * @param {readonly S[]} sides
 * @param {number} bursts
 * @param {(side: S) => Promise<void>} burst
 */
async function takeTurns(sides, bursts, burst) {
  for (let i = 0; i < bursts; i += 1) {
    const order = sides.length === 2 ? (i % 2 === 0 ? sides : [...sides].reverse()) : rotate(sides, i);
    for (const side of order) await burst(side);
  }
}

/** @template T @param {readonly T[]} list @param {number} by */
const rotate = (list, by) => list.map((_, i) => /** @type {T} */ (list[(i + by) % list.length]));

/**
 * Why the section cannot run here (no PostgreSQL server binaries, or no built CLI), or undefined when it can.
 * @returns {string | undefined}
 */
export function enginesInputsMissing() {
  /** @type {string} */
  let bin;
  try {
    bin = postgresBinDir();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const absent = ["initdb", "pg_ctl"].filter((tool) => !existsSync(join(bin, tool)));
  if (absent.length > 0) return `${absent.join(" and ")} not found in ${bin} (KXM_POSTGRES_BIN)`;
  if (!existsSync(CLI_BUILT)) return "the CLI is not built (pnpm bench builds it)";
  return undefined;
}

/**
 * @param {{ size: number, mode: string }} job
 */
export async function benchEngines({ size, mode }) {
  const seconds = mode === "smoke" ? 0.5 : mode === "quick" ? 4 : 8;
  const bursts = Math.max(1, Math.floor(seconds / BURST_SECONDS));
  const burstSeconds = Math.min(seconds, BURST_SECONDS);
  const hubCounts = mode === "smoke" ? [1, 2] : [1, 2, 4];
  const dir = mkdtempSync(join(tmpdir(), "kxm-bench-engines-"));
  const cluster = await startPostgres({ durable: true });
  try {
    const file = join(dir, "kxm.db");
    const started = now();
    const seeded = openStore({ path: file });
    /** @type {Awaited<ReturnType<typeof seedHubStore>>} */
    let seed;
    try {
      const at = new Date("2026-09-01T00:00:00Z");
      seed = await seedHubStore(seeded, size, at);
      const proposal = await seeded.proposeState(
        {
          project: PROJECT,
          key: STATE_KEY,
          summary: "Releases are cut from the main branch",
          authority: "evidence",
          confidence: "verified",
          evidenceRefs: ["bench:state"],
          origin: "peer",
          proposedBy: "bench-agent",
        },
        at,
      );
      await seeded.promoteState(
        {
          project: PROJECT,
          proposalId: proposal.id,
          promotedBy: "kxm-admin",
          evidenceRefs: ["bench:review"],
        },
        at,
      );
    } finally {
      await seeded.close();
    }
    for (const name of ["kxm_engines", "kxm_hubs"]) {
      await createDatabase(cluster.url("postgres"), name);
      await copySqliteToPostgres({ from: file, to: cluster.url(name) });
    }
    const setupMs = now() - started;
    const requests = requestsOf(seed.key, seed.items);
    // Numbers every burst of the run, so that its proposals' keys are its own.
    let burst = 0;
    const nextBurst = () => {
      burst += 1;
      return burst;
    };
    const postgresCpu = () => serverCpuMs(cluster.pid);

    // Engines: both hubs in this process, one measured while the other idles.
    const stores = {
      sqlite: openStore({ path: file }),
      postgres: await openPostgresStore({ url: cluster.url("kxm_engines") }),
    };
    /** @type {Record<(typeof ENGINES)[number], string>} */
    const addresses = { sqlite: "", postgres: "" };
    /** @type {import("fastify").FastifyInstance[]} */
    const apps = [];
    /** @type {Record<string, Record<(typeof ENGINES)[number], any>>} */
    const routes = {};
    try {
      for (const engine of ENGINES) {
        const app = await buildHub({
          store: stores[engine],
          adminToken: ADMIN_TOKEN,
          logger: pino({ level: "info" }, pino.destination({ dest: join(dir, `${engine}.log`), sync: true })),
          rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 },
        });
        apps.push(app);
        addresses[engine] = await app.listen({ host: "127.0.0.1", port: 0 });
        // One warm-up loads the pool and its indexes, as a real hub's first request does.
        await cannon(addresses[engine], requests.contextLong(0).slice(0, 5), Math.min(1, seconds));
      }
      const hubCpu = () => {
        const usage = process.cpuUsage();
        return (usage.user + usage.system) / 1000;
      };
      for (const route of ROUTES) {
        /** @type {Record<(typeof ENGINES)[number], { runs: any[], windows: any[] }>} */
        const figures = { sqlite: { runs: [], windows: [] }, postgres: { runs: [], windows: [] } };
        await takeTurns(ENGINES, bursts, async (engine) => {
          const window = cpuWindow({ hubs: hubCpu, postgres: postgresCpu });
          const run = await cannon(addresses[engine], requests[route](nextBurst()), burstSeconds, {
            onStart: window.onStart,
          });
          figures[engine].runs.push(run);
          figures[engine].windows.push(window.end(run.cpuMs));
          await idle();
        });
        routes[route] = {
          sqlite: summarized(figures.sqlite.runs, figures.sqlite.windows),
          postgres: summarized(figures.postgres.runs, figures.postgres.windows),
        };
      }
    } finally {
      for (const app of apps) await app.close();
      for (const store of Object.values(stores)) await store.close();
    }

    /**
     * The throughput loads, each count of `counts` taking its turn in bursts at {@link CONNECTIONS} connections
     * against the addresses `target` gives it, with the CPU its readers give read around each burst.
     * @param {readonly number[]} counts
     * @param {(n: number) => { urls: string | string[], hubs: () => number, postgres: () => number }} target
     * @returns {Promise<Record<string, Record<string, any>>>}
     */
    const loadsOver = async (counts, target) => {
      /** @type {Record<string, Record<string, any>>} */
      const byLoad = {};
      for (const load of /** @type {const} */ (["contextLong", "mixed"])) {
        /** @type {Map<number, { runs: any[], windows: any[] }>} */
        const figures = new Map(counts.map((n) => [n, { runs: [], windows: [] }]));
        await takeTurns(counts, bursts, async (n) => {
          const { urls, ...readers } = target(n);
          const window = cpuWindow(readers);
          const run = await cannon(urls, requests[load](nextBurst()), burstSeconds, {
            connections: CONNECTIONS,
            onStart: window.onStart,
          });
          figures.get(n)?.runs.push(run);
          figures.get(n)?.windows.push(window.end(run.cpuMs));
          await idle();
        });
        byLoad[load] = Object.fromEntries(
          counts.map((n) => [n, summarized(figures.get(n)?.runs ?? [], figures.get(n)?.windows ?? [])]),
        );
      }
      return byLoad;
    };

    // Hubs: processes of the built CLI on one database, every one of them started (idle ones wait on LISTEN).
    const most = Math.max(...hubCounts);
    const hubs = await Promise.all(
      Array.from({ length: most }, (_, n) =>
        startHubProcess({ KXM_DATABASE_URL: cluster.url("kxm_hubs") }, dir, String(n)),
      ),
    );
    /** @type {Record<string, Record<string, any>>} */
    let throughput;
    try {
      const urls = hubs.map((hub) => hub.url);
      await cannon(urls, requests.contextLong(0).slice(0, 5), Math.min(1, seconds), { connections: most });
      const hubsCpu = () => hubs.reduce((n, hub) => n + processCpuMs(hub.pid), 0);
      throughput = await loadsOver(hubCounts, (n) => ({
        urls: urls.slice(0, n),
        hubs: hubsCpu,
        postgres: postgresCpu,
      }));
    } finally {
      await Promise.all(hubs.map((hub) => hub.stop()));
    }

    // Workers: one served hub with one process and one with two, on the SQLite file, each at one address.
    const servers = new Map(
      await Promise.all(
        WORKER_COUNTS.map(
          async (n) =>
            /** @type {const} */ ([
              n,
              await startHubProcess({ KXM_DB_PATH: file }, dir, `workers-${n}`, ["--workers", String(n)]),
            ]),
        ),
      ),
    );
    /** @type {Record<string, Record<string, any>>} */
    let workers;
    try {
      for (const server of servers.values()) {
        await cannon(server.url, requests.contextLong(0).slice(0, 5), Math.min(1, seconds), {
          connections: CONNECTIONS,
        });
      }
      workers = await loadsOver(WORKER_COUNTS, (n) => {
        const server = /** @type {{ url: string, pid: number }} */ (servers.get(n));
        // The server's CPU with its workers' (node:cluster forks them), read as a PostgreSQL server's is.
        return { urls: server.url, hubs: () => serverCpuMs(server.pid), postgres: () => 0 };
      });
    } finally {
      await Promise.all([...servers.values()].map((server) => server.stop()));
    }
    return {
      system: "engines",
      size,
      seconds,
      bursts,
      burstSeconds,
      connections: CONNECTIONS,
      mixedWriteEvery: MIXED_WRITE_EVERY,
      hubCounts,
      workerCounts: WORKER_COUNTS,
      setupMs: Math.round(setupMs),
      routes,
      throughput,
      workers,
    };
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
