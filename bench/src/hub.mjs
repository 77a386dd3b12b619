// @ts-check
// The hub under load on loopback: a real hub (Fastify, SQLite store, pino logging to a file) serving one project
// whose pool is `size` journal records made from the seeded pool's summaries, driven by autocannon in a process of
// its own. Two yardsticks run in the same process: a Fastify hello route, for what HTTP itself costs, and the bare
// route, a Fastify route that answers the same requests from an in-process index over the same items with nothing
// else around the arbiter's call, for what serving an assembly costs without the hub. The hub and the bare route
// take turns in short bursts, each going first in every other pair, so that both meet the machine at the same
// speed (it drifts by a quarter or more from one minute to the next) and neither always follows the other. The
// hub's own time per request is read from its request log (`durationMs`: from the request's arrival to the last
// byte handed to the socket), the bare route's from the same Fastify clock, and the arbiter's own time in those
// same requests by wrapping PoolIndex's assemble and recall (the hub and this module load the one @kxm/arbiter).
// The in-process figures of the same calls without HTTP are kept too.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PoolIndex } from "@kxm/arbiter";
import { rolePolicy } from "@kxm/contract";
import { buildHub } from "@kxm/hub";
import { journalEntryToItem } from "@kxm/provenance";
import { openStore } from "@kxm/state-store";
import Fastify from "fastify";
import pino from "pino";
import { BURST_SECONDS, cannon, idle, pooled } from "./load.mjs";
import { settle, summarize, timeEach } from "./measure.mjs";
import { generatePool, generateQueries, generateTasks, PROJECT } from "./pool.mjs";

/** The role every packet is asked for. */
export const ROLE = "implementer";
/** The admin token of every hub the bench starts. */
export const ADMIN_TOKEN = "bench-admin-token-0123456789";

/**
 * Fills a fresh store with the hub sections' project: an agent key and `size` journal records made from the
 * seeded pool's summaries, in one run. Answers the key and the records as the arbiter's items.
 * @param {import("@kxm/state-store").KxmStore} store
 * @param {number} size
 * @param {Date} now
 */
export async function seedHubStore(store, size, now) {
  await store.createProject({ id: PROJECT }, now);
  const { key } = await store.createAgentKey(PROJECT, "bench-agent", now);
  const run = await store.startRun({ project: PROJECT, workflow: "bench" }, now);
  const categories = rolePolicy(ROLE).journalCategories;
  const pool = generatePool(size);
  for (const [i, item] of pool.entries()) {
    await store.appendJournal(
      {
        project: PROJECT,
        runId: run.id,
        category: categories[i % categories.length],
        summary: item.summary,
        evidenceRefs: [`bench:${i}`],
      },
      now,
    );
  }
  const entries = await store.listJournal(PROJECT);
  return { key, items: entries.map(journalEntryToItem) };
}

/** The two servers that take turns: the hub, and the bare route it is measured against. */
const SIDES = /** @type {const} */ (["hub", "bare"]);

/** @param {number} ms */
const round = (ms) => Math.round(ms * 1000) / 1000;

/**
 * @param {{ size: number, mode: string }} job
 */
export async function benchHub({ size, mode }) {
  const originalAssemble = PoolIndex.prototype.assemble;
  const originalRecall = PoolIndex.prototype.recall;
  const seconds = mode === "smoke" ? 1 : mode === "quick" ? 4 : 8;
  const dir = mkdtempSync(join(tmpdir(), "kxm-bench-hub-"));
  /** @type {{ close: () => Promise<unknown> }[]} */
  const servers = [];
  const store = openStore({ path: join(dir, "kxm.db") });
  try {
    const { key, items } = await seedHubStore(store, size, new Date("2026-09-01T00:00:00Z"));

    const tasks = generateTasks(50);
    const queries = generateQueries(items, 50).map(({ query }) => query);
    /** @param {readonly string[]} texts */
    const contextBodies = (texts) => texts.map((task) => ({ role: ROLE, task }));

    /** @param {number[]} durations */
    const stats = (durations) => {
      const s = summarize(durations);
      return { n: s.n, p50: round(s.p50), p99: round(s.p99) };
    };
    // In-process: the same requests against an index over the same items, in this process, one call at a time.
    const index = new PoolIndex(items);
    /** @param {readonly object[]} requests @param {(request: any) => unknown} fn */
    const inProcess = (requests, fn) => {
      settle(requests, fn);
      const samples = [];
      for (let pass = 0; pass < 3; pass += 1) samples.push(...timeEach(requests, fn));
      return stats(samples);
    };
    const inProcessLong = inProcess(contextBodies(tasks.long), (body) =>
      index.assemble({ ...body, project: PROJECT }),
    );
    const inProcessShort = inProcess(contextBodies(tasks.short), (body) =>
      index.assemble({ ...body, project: PROJECT }),
    );
    const inProcessRecall = inProcess(
      queries.map((query) => ({ query })),
      (body) => index.recall({ ...body, project: PROJECT }),
    );
    const inProcessLongJson = inProcess(contextBodies(tasks.long), (body) =>
      JSON.stringify(index.assemble({ ...body, project: PROJECT })),
    );

    // Written synchronously, line by line, as a hub logging to a file does; read back after each route's run.
    const logFile = join(dir, "hub.log");
    const logger = pino({ level: "info" }, pino.destination({ dest: logFile, sync: true }));
    let logLines = 0;
    /** The `durationMs` of the requests logged since the last call, as the hub measured them. */
    const loggedDurations = () => {
      const lines = readFileSync(logFile, "utf8")
        .split("\n")
        .filter((line) => line !== "");
      const fresh = lines.slice(logLines);
      logLines = lines.length;
      return fresh
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.event === "request" && entry.status === 200)
        .map((entry) => Number(entry.durationMs));
    };
    // The duration of every PoolIndex assemble and recall call, by server: the bare route's calls are the ones on
    // this module's own index, every other index is one of the hub's.
    /** @type {{ hub: number[], bare: number[] }} */
    const arbiterCalls = { hub: [], bare: [] };
    /** @param {(typeof SIDES)[number]} server the durations of its arbiter calls since the last call for it */
    const arbiterDurations = (server) => {
      const durations = arbiterCalls[server];
      arbiterCalls[server] = [];
      return durations;
    };
    /** @template {(...args: any[]) => any} F @param {F} method @returns {F} */
    const timed = (method) =>
      /** @type {F} */ (
        /** @this {PoolIndex} @param {any[]} args */
        function timedCall(...args) {
          const start = process.hrtime.bigint();
          try {
            return method.apply(this, args);
          } finally {
            arbiterCalls[this === index ? "bare" : "hub"].push(Number(process.hrtime.bigint() - start) / 1e6);
          }
        }
      );
    PoolIndex.prototype.assemble = timed(originalAssemble);
    PoolIndex.prototype.recall = timed(originalRecall);
    const app = await buildHub({
      store,
      adminToken: ADMIN_TOKEN,
      logger,
      rateLimit: { max: 1_000_000_000, timeWindowMs: 60_000 },
    });
    servers.push(app);
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    const hello = Fastify();
    servers.push(hello);
    hello.get("/hello", async () => ({ hello: "world" }));
    const helloAddress = await hello.listen({ host: "127.0.0.1", port: 0 });
    // The bare route: the same assembly and recall, from the in-process index over the same items, served by a
    // Fastify route with nothing else (no auth, validation, rate limit, log or pool lookup), answering the
    // arbiter's result as Fastify serializes it. Its time per request is Fastify's own, as the hub's log reads it.
    const bareRoute = Fastify();
    servers.push(bareRoute);
    /** @type {number[]} */
    let bareTimes = [];
    bareRoute.addHook("onResponse", async (_request, reply) => {
      // Rounded to 0.1 ms as the hub's log rounds `durationMs`, so that both are read alike.
      if (reply.statusCode === 200) bareTimes.push(Math.round(reply.elapsedTime * 10) / 10);
    });
    bareRoute.post("/context", async (request) =>
      index.assemble({ .../** @type {any} */ (request.body), project: PROJECT }),
    );
    bareRoute.post("/recall", async (request) =>
      index.recall({ .../** @type {any} */ (request.body), project: PROJECT }),
    );
    const bareAddress = await bareRoute.listen({ host: "127.0.0.1", port: 0 });

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    /** @param {string} path @param {readonly object[]} bodies */
    const posts = (path, bodies) =>
      bodies.map((body) => ({ method: "POST", path, headers, body: JSON.stringify(body) }));
    const contextPath = `/v1/projects/${PROJECT}/context`;
    const recallPath = `/v1/projects/${PROJECT}/recall`;
    // Each server's address, and how to take the times it measured itself since the last take.
    const sides = {
      hub: { address, takeTimes: loggedDurations },
      bare: {
        address: bareAddress,
        takeTimes: () => {
          const times = bareTimes;
          bareTimes = [];
          return times;
        },
      },
    };
    // One warm-up pass loads the pool and its indexes, as the first request of a real hub would; the bare route
    // is warmed the same way.
    await cannon(address, posts(contextPath, contextBodies(tasks.long.slice(0, 5))), 1);
    await cannon(bareAddress, posts("/context", contextBodies(tasks.long.slice(0, 5))), 1);
    for (const side of SIDES) {
      sides[side].takeTimes();
      arbiterDurations(side);
    }
    const helloFigures = pooled([await cannon(helloAddress, [{ method: "GET", path: "/hello" }], seconds)]);

    // The hub and the bare route take turns in bursts, each going first in every other pair, so that both meet the
    // machine at the same speed and neither always inherits what the other left (its garbage, its cache lines).
    const bursts = Math.max(1, Math.floor(seconds / BURST_SECONDS));
    const burstSeconds = Math.min(seconds, BURST_SECONDS);
    /** @param {string} hubPath @param {string} barePath @param {readonly object[]} bodies */
    const alternate = async (hubPath, barePath, bodies) => {
      const paths = { hub: hubPath, bare: barePath };
      /** @type {Record<(typeof SIDES)[number], { runs: any[], times: number[], arbiter: number[] }>} */
      const figures = {
        hub: { runs: [], times: [], arbiter: [] },
        bare: { runs: [], times: [], arbiter: [] },
      };
      /** @param {(typeof SIDES)[number]} side */
      const burst = async (side) => {
        const into = figures[side];
        into.runs.push(await cannon(sides[side].address, posts(paths[side], bodies), burstSeconds));
        // A request still in flight when autocannon stopped is answered (and logged) in a moment.
        await idle();
        for (const ms of sides[side].takeTimes()) into.times.push(ms);
        for (const ms of arbiterDurations(side)) into.arbiter.push(ms);
      };
      for (let i = 0; i < bursts; i += 1) {
        for (const side of i % 2 === 0 ? SIDES : [...SIDES].reverse()) await burst(side);
      }
      const { hub, bare } = figures;
      return {
        hub: { ...pooled(hub.runs), inHub: { ...stats(hub.times), arbiter: stats(hub.arbiter) } },
        bare: { ...pooled(bare.runs), inServer: { ...stats(bare.times), arbiter: stats(bare.arbiter) } },
      };
    };
    const contextLong = await alternate(contextPath, "/context", contextBodies(tasks.long));
    const contextShort = await alternate(contextPath, "/context", contextBodies(tasks.short));
    const recallRoute = await alternate(
      recallPath,
      "/recall",
      queries.map((query) => ({ query })),
    );
    return {
      system: "hub",
      size,
      connections: 1,
      seconds,
      bursts,
      burstSeconds,
      hello: helloFigures,
      contextLong: contextLong.hub,
      contextShort: contextShort.hub,
      recall: recallRoute.hub,
      bareRoute: { contextLong: contextLong.bare, contextShort: contextShort.bare, recall: recallRoute.bare },
      inProcess: {
        long: inProcessLong,
        short: inProcessShort,
        recall: inProcessRecall,
        longWithJson: inProcessLongJson,
      },
    };
  } finally {
    for (const server of servers) await server.close();
    PoolIndex.prototype.assemble = originalAssemble;
    PoolIndex.prototype.recall = originalRecall;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
