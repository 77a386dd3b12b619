// @ts-check
// The hub under load on loopback: a real hub (Fastify, SQLite store, pino logging to /dev/null) serving one
// project whose pool is `size` journal records made from the seeded pool's summaries, driven by autocannon in a
// process of its own; a bare Fastify hello route in the same run is the yardstick for what HTTP itself costs; and
// the same packets and recalls assembled in-process from an index over the same items, which is the "bare
// assembly" the hub's overhead is measured against. The hub's own time per request is read from its request log
// (`durationMs`: from the request's arrival to the last byte handed to the socket), and the arbiter's own time in
// those same requests by wrapping PoolIndex's assemble and recall (the hub and this module load the one
// @kxm/arbiter): the two come from the same requests at the same moments, so their ratio, what the hub adds over
// assembly, does not move with the machine's speed from one minute to the next as a comparison with the bare
// figures, taken a minute earlier, does.
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PoolIndex } from "@kxm/arbiter";
import { rolePolicy } from "@kxm/contract";
import { buildHub } from "@kxm/hub";
import { journalEntryToItem } from "@kxm/provenance";
import { openStore } from "@kxm/state-store";
import Fastify from "fastify";
import pino from "pino";
import { settle, summarize, timeEach } from "./measure.mjs";
import { generatePool, generateQueries, generateTasks, PROJECT } from "./pool.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROLE = "implementer";
const ADMIN_TOKEN = "bench-admin-token-0123456789";

/**
 * @param {string} url
 * @param {readonly object[]} requests
 * @param {number} durationSeconds
 * @returns {Promise<any>}
 */
function cannon(url, requests, durationSeconds) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, "cannon.mjs"), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    /** @type {unknown} */
    let result;
    child.on("message", (message) => {
      result = message;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      result === undefined ? reject(new Error(`autocannon exited with ${code}`)) : resolve(result),
    );
    child.send({ url, connections: 1, durationSeconds, requests });
  });
}

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
  const store = openStore({ path: join(dir, "kxm.db") });
  try {
    const now = new Date("2026-09-01T00:00:00Z");
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
    const items = entries.map(journalEntryToItem);

    const tasks = generateTasks(50);
    const queries = generateQueries(items, 50).map(({ query }) => query);
    /** @param {readonly string[]} texts */
    const contextBodies = (texts) => texts.map((task) => ({ role: ROLE, task }));

    // Bare: the same requests against an index over the same items, in this process, one call at a time.
    const index = new PoolIndex(items);
    /** @param {readonly object[]} requests @param {(request: any) => unknown} fn */
    const bare = (requests, fn) => {
      settle(requests, fn);
      const samples = [];
      for (let pass = 0; pass < 3; pass += 1) samples.push(...timeEach(requests, fn));
      const s = summarize(samples);
      return { n: s.n, p50: round(s.p50), p99: round(s.p99) };
    };
    const bareLong = bare(contextBodies(tasks.long), (body) => index.assemble({ ...body, project: PROJECT }));
    const bareShort = bare(contextBodies(tasks.short), (body) =>
      index.assemble({ ...body, project: PROJECT }),
    );
    const bareRecall = bare(
      queries.map((query) => ({ query })),
      (body) => index.recall({ ...body, project: PROJECT }),
    );
    const bareLongJson = bare(contextBodies(tasks.long), (body) =>
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
    /** The duration of every PoolIndex assemble and recall call since the last call of `arbiterDurations`. */
    let arbiterCalls = [];
    const arbiterDurations = () => {
      const durations = arbiterCalls;
      arbiterCalls = [];
      return durations;
    };
    /** @param {number[]} durations */
    const stats = (durations) => {
      const s = summarize(durations);
      return { n: s.n, p50: round(s.p50), p99: round(s.p99) };
    };
    /** The hub's own time and its arbiter calls' over the requests answered since the last call. */
    const inHub = () => ({ ...stats(loggedDurations()), arbiter: stats(arbiterDurations()) });
    /** @template {(...args: any[]) => any} F @param {F} method @returns {F} */
    const timed = (method) =>
      /** @type {F} */ (
        /** @this {PoolIndex} @param {any[]} args */
        function timedCall(...args) {
          const start = process.hrtime.bigint();
          try {
            return method.apply(this, args);
          } finally {
            arbiterCalls.push(Number(process.hrtime.bigint() - start) / 1e6);
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
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    const hello = Fastify();
    hello.get("/hello", async () => ({ hello: "world" }));
    const helloAddress = await hello.listen({ host: "127.0.0.1", port: 0 });

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    /** @param {string} path @param {readonly object[]} bodies */
    const posts = (path, bodies) =>
      bodies.map((body) => ({ method: "POST", path, headers, body: JSON.stringify(body) }));
    const contextPath = `/v1/projects/${PROJECT}/context`;
    const recallPath = `/v1/projects/${PROJECT}/recall`;
    // One warm-up pass loads the pool and its indexes, as the first request of a real hub would.
    await cannon(address, posts(contextPath, contextBodies(tasks.long.slice(0, 5))), 1);
    inHub();
    const helloFigures = await cannon(helloAddress, [{ method: "GET", path: "/hello" }], seconds);
    const contextLong = await cannon(address, posts(contextPath, contextBodies(tasks.long)), seconds);
    contextLong.inHub = inHub();
    const contextShort = await cannon(address, posts(contextPath, contextBodies(tasks.short)), seconds);
    contextShort.inHub = inHub();
    const recallFigures = await cannon(
      address,
      posts(
        recallPath,
        queries.map((query) => ({ query })),
      ),
      seconds,
    );
    recallFigures.inHub = inHub();
    await app.close();
    await hello.close();
    return {
      system: "hub",
      size,
      connections: 1,
      seconds,
      hello: helloFigures,
      contextLong,
      contextShort,
      recall: recallFigures,
      bare: { long: bareLong, short: bareShort, recall: bareRecall, longWithJson: bareLongJson },
    };
  } finally {
    PoolIndex.prototype.assemble = originalAssemble;
    PoolIndex.prototype.recall = originalRecall;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
