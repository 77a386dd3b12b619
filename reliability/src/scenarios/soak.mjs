// @ts-check
// A soak: one real hub process under many concurrent keep-alive clients mixing every kind of work an agent fleet
// does (context, recall, proposals, promotions, runs with journal entries and reviews, episodes, state reads) for
// a bounded time, then a read-only second half. Figures: errors other than the rate limiter's 429s, latency per
// route kind, and the process's resident memory and open file descriptors over time.
import { join } from "node:path";
import { compareCodeUnits } from "@kxm/contract";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { keepAliveClient } from "../lib/keepalive-client.mjs";
import { fdKinds, mib, openFds, rssBytes } from "../lib/process-stats.mjs";
import { seededRandom } from "../lib/random.mjs";
import { count, percentile } from "../lib/stats.mjs";

const PROJECTS = ["soak-a", "soak-b"];
/** The growth the read-only second half may show: with nothing added, more than this is a leak. */
const READ_HALF_GROWTH = 1.1;
/**
 * The part of the read-only half whose highest RSS is its baseline. The writes in flight when the half begins still
 * settle, and V8 grows its heap in steps before it collects, so one sample at the switch can sit low in that
 * sawtooth; the highest of the first quarter's samples cannot, and a leak still shows at the end.
 */
const READ_BASELINE_SHARE = 0.25;
/** End RSS may be this much over RSS after warm-up, plus ITEM_ALLOWANCE for every record the soak added. */
const END_RATIO = 1.25;
/** Generous for one record in a pool index (the item, its postings, its share of the store's page cache). */
const ITEM_ALLOWANCE = 16 * 1024;
/**
 * The hub's V8 old space, in MiB (`--max-old-space-size`). Without a bound V8 sizes its heap from the machine's
 * memory (about 4 GiB here) and collects lazily, so RSS climbs by megabytes a second under load with nothing live
 * added: two heap snapshots 13 s apart in the read-only half held the same 40.7 MB while RSS grew 1.14x. With a
 * bound, V8 collects before it grows, so RSS follows what is live, and a real leak still shows: as growth, then as
 * an out-of-memory exit (an error and a failed exit code). Several times the soak's live heap.
 */
const OLD_SPACE_MIB = 160;
/** Open descriptors may differ by this much between two moments under the same load (sockets come and go). */
const FD_SLACK = 8;

const WORDS = [
  "release",
  "branch",
  "migration",
  "cache",
  "deploy",
  "rollback",
  "schema",
  "token",
  "queue",
  "index",
  "timeout",
  "retry",
  "budget",
  "review",
];

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "soak",
  title: "Soak under concurrent load",
  order: 40,
  async run({ short, seed, scratch, progress }) {
    const clients = short ? 32 : 64;
    const warmupMs = short ? 6_000 : 30_000;
    const mixedMs = short ? 12_000 : 75_000;
    const readMs = short ? 24_000 : 75_000;
    const next = seededRandom(seed);
    const pick = (/** @type {readonly string[]} */ list) =>
      /** @type {string} */ (list[Math.floor(next() * list.length)]);
    const task = () => `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} for the next step`;

    const hub = await startHubProcess({
      dbPath: join(scratch, "kxm.db"),
      adminToken: ADMIN,
      // A limit an agent fleet could meet: 429s are expected and counted, never errors.
      env: {
        KXM_LOG_LEVEL: "silent",
        KXM_RATE_LIMIT: "3000",
        NODE_OPTIONS: `--max-old-space-size=${OLD_SPACE_MIB}`,
      },
    });
    const pid = /** @type {number} */ (hub.child.pid);
    /** @type {Map<string, string[]>} */
    const keysByProject = new Map();
    for (const project of PROJECTS) {
      const keys = [await projectWithAgent(hub.url, ADMIN, project)];
      for (let n = 1; n < clients / PROJECTS.length; n += 1) {
        const agent = await call(hub.url, "POST", `/v1/projects/${project}/agents`, {
          token: ADMIN,
          body: { agentId: `agent-soak-${n}` },
        });
        if (agent.status !== 201) throw new Error(`createAgentKey answered ${agent.status}`);
        keys.push(agent.json.key);
      }
      keysByProject.set(project, keys);
    }

    /** @type {Map<string, number[]>} */
    const latency = new Map();
    /** @type {Map<string, number>} */
    const errorKinds = new Map();
    let requests = 0;
    let limited = 0;
    let errors = 0;
    let added = 0;
    /** Proposals waiting for promotion, per project. @type {Map<string, string[]>} */
    const pending = new Map(PROJECTS.map((project) => [project, []]));
    /** State keys with a current value, per project. @type {Map<string, string[]>} */
    const promoted = new Map(PROJECTS.map((project) => [project, []]));

    /**
     * One request, timed and classified. Returns the answer when it succeeded, else undefined.
     * @param {ReturnType<typeof keepAliveClient>} connection
     * @param {string} kind @param {string} method @param {string} path @param {string} token
     * @param {unknown} [body] @param {number} [expected]
     */
    const send = async (connection, kind, method, path, token, body, expected = 200) => {
      const started = performance.now();
      let answer;
      try {
        answer = await connection.call(method, path, { token, ...(body === undefined ? {} : { body }) });
      } catch (error) {
        errors += 1;
        const name = `${kind}: ${error instanceof Error ? error.message : String(error)}`;
        errorKinds.set(name, (errorKinds.get(name) ?? 0) + 1);
        return undefined;
      }
      requests += 1;
      const list = latency.get(kind) ?? [];
      list.push(performance.now() - started);
      latency.set(kind, list);
      if (answer.status === 429) {
        limited += 1;
        return undefined;
      }
      if (answer.status !== expected) {
        errors += 1;
        const name = `${kind}: ${answer.status} ${answer.json?.code ?? ""}`;
        errorKinds.set(name, (errorKinds.get(name) ?? 0) + 1);
        return undefined;
      }
      return answer;
    };

    let readOnly = false;
    let stopped = false;
    /** @param {number} n */
    const client = async (n) => {
      const project = /** @type {string} */ (PROJECTS[n % PROJECTS.length]);
      const key = /** @type {string} */ (
        /** @type {string[]} */ (keysByProject.get(project))[Math.floor(n / PROJECTS.length)]
      );
      const base = `/v1/projects/${project}`;
      const waiting = /** @type {string[]} */ (pending.get(project));
      const current = /** @type {string[]} */ (promoted.get(project));
      const connection = keepAliveClient(hub.url);
      /** @type {(kind: string, method: string, path: string, token: string, body?: unknown, expected?: number) => ReturnType<typeof send>} */
      const request = (...args) => send(connection, ...args);
      for (let i = 0; !stopped; i += 1) {
        const roll = next();
        const stateKey = current.length > 0 ? pick(current) : undefined;
        if (roll < 0.25) {
          await request("context", "POST", `${base}/context`, key, { role: "planner", task: task() });
        } else if (roll < 0.45) {
          await request("recall", "POST", `${base}/recall`, key, { query: `${pick(WORDS)} ${pick(WORDS)}` });
        } else if (roll < 0.55 && stateKey !== undefined) {
          await request("state", "GET", `${base}/state/${stateKey}`, key);
        } else if (roll < 0.6 && stateKey !== undefined) {
          await request("state", "GET", `${base}/state/${stateKey}/history`, key);
        } else if (roll < 0.67) {
          await request("episodes", "GET", `${base}/episodes?limit=10`, key);
        } else if (roll < 0.7) {
          await request("health", "GET", "/v1/health", key);
        } else if (readOnly) {
          await request("context", "POST", `${base}/context`, key, { role: "planner", task: task() });
        } else if (roll < 0.82) {
          // A handful of keys, each proposed again and again: promotions supersede, so history grows.
          const proposed = `soak.${pick(WORDS)}.${Math.floor(next() * 20)}`;
          const answer = await request(
            "propose",
            "POST",
            `${base}/state/proposals`,
            key,
            proposal(proposed, `The ${pick(WORDS)} rule for ${proposed}, revision ${i} of client ${n}`),
            201,
          );
          if (answer !== undefined) {
            added += 1;
            waiting.push(`${answer.json.proposalId} ${proposed}`);
          }
        } else if (roll < 0.9) {
          const taken = waiting.shift();
          if (taken === undefined) continue;
          const [proposalId, proposed] = taken.split(" ");
          const answer = await request(
            "promote",
            "POST",
            `${base}/state/proposals/${proposalId}/promote`,
            ADMIN,
            {
              evidenceRefs: [`review:soak-${n}-${i}`],
            },
          );
          if (answer !== undefined && !current.includes(/** @type {string} */ (proposed)))
            current.push(/** @type {string} */ (proposed));
        } else {
          const run = await request("run", "POST", `${base}/runs`, key, { workflow: "soak" }, 201);
          if (run === undefined) continue;
          const runId = run.json.run.id;
          const entry = await request(
            "journal",
            "POST",
            `${base}/runs/${runId}/journal`,
            key,
            { category: "decision", summary: `Chose the ${pick(WORDS)} path`, evidenceRefs: ["pr:12"] },
            201,
          );
          await request(
            "journal",
            "POST",
            `${base}/runs/${runId}/journal`,
            key,
            { category: "plan", summary: `Next: ${task()}` },
            201,
          );
          const finished = await request("run", "POST", `${base}/runs/${runId}/finish`, key, {
            outcome: next() < 0.8 ? "succeeded" : "failed",
            lessons: [`Check the ${pick(WORDS)} first`],
          });
          added += 4; // the run's two entries, its episode, and the run itself
          if (entry !== undefined && finished !== undefined) {
            await request("review", "POST", `${base}/journal/${entry.json.entry.id}/review`, ADMIN, {
              evidenceRefs: ["review:soak"],
            });
          }
        }
      }
      connection.close();
    };

    /** @type {{ at: number, rss: number, fds: number }[]} */
    const samples = [];
    const started = performance.now();
    const sample = () => {
      const point = { at: performance.now() - started, rss: rssBytes(pid), fds: openFds(pid) };
      samples.push(point);
      return point;
    };
    const sampler = setInterval(sample, 1_000);
    const running = Array.from({ length: clients }, (_, n) => client(n));
    const wait = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

    await wait(warmupMs);
    const afterWarmup = sample();
    const kindsAfterWarmup = fdKinds(pid);
    const addedAtWarmup = added;
    const requestsAtWarmup = requests;
    progress(
      `warm-up done: ${count(requests)} requests, RSS ${mib(afterWarmup.rss)}, ${afterWarmup.fds} fds`,
    );
    await wait(mixedMs);
    readOnly = true;
    const atReadHalf = sample();
    const addedInSoak = added - addedAtWarmup;
    progress(
      `mixed half done: ${count(requests)} requests, RSS ${mib(atReadHalf.rss)}, ${count(added)} added`,
    );
    await wait(readMs);
    const atEnd = sample();
    const kindsAtEnd = fdKinds(pid);
    stopped = true;
    clearInterval(sampler);
    await Promise.all(running);
    const peak = Math.max(...samples.map((point) => point.rss));
    const stop = await hub.stop();

    const baselineUntil = atReadHalf.at + readMs * READ_BASELINE_SHARE;
    const readBaseline = Math.max(
      ...samples
        .filter((point) => point.at >= atReadHalf.at && point.at <= baselineUntil)
        .map((point) => point.rss),
    );
    const readGrowth = atEnd.rss / readBaseline;
    const endBound = END_RATIO * afterWarmup.rss + ITEM_ALLOWANCE * addedInSoak;
    const kinds = [...latency.keys()].sort();
    const all = kinds.flatMap((kind) => /** @type {number[]} */ (latency.get(kind)));
    const ms = (/** @type {number} */ value) => `${value.toFixed(1)} ms`;
    const seconds = (warmupMs + mixedMs + readMs) / 1000;
    return {
      tried: `${clients} concurrent keep-alive clients (one agent key each, two projects; promotions and reviews with the admin token) over one connection each, against one \`kxm hub serve\` process for ${seconds} s: ${warmupMs / 1000} s of warm-up and ${mixedMs / 1000} s of mixed work (context, recall, proposals, promotions, runs with journal entries, finishes and reviews, episodes, state reads), then ${readMs / 1000} s of reads only; ${count(requests)} requests, ${count(requests - requestsAtWarmup)} after warm-up, ${count(added)} records added. RSS and open descriptors come from /proc/<pid>.`,
      figures: [
        { label: "requests answered", value: count(requests), goal: "more than 0", held: requests > 0 },
        {
          label: "errors other than 429 (statuses, resets)",
          value: count(errors),
          goal: "0",
          held: errors === 0,
        },
        { label: "429 rate_limited answers", value: count(limited), goal: "reported", held: true },
        {
          label: "latency, all requests (p50 / p99)",
          value: `${ms(percentile(all, 50))} / ${ms(percentile(all, 99))}`,
          goal: "reported",
          held: true,
        },
        ...kinds.map((kind) => {
          const values = /** @type {number[]} */ (latency.get(kind));
          return {
            label: `latency, ${kind} (p50 / p99, ${count(values.length)} requests)`,
            value: `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`,
            goal: "reported",
            held: true,
          };
        }),
        {
          label: "RSS after warm-up / at the read-only half / at the end (peak)",
          value: `${mib(afterWarmup.rss)} / ${mib(atReadHalf.rss)} / ${mib(atEnd.rss)} (${mib(peak)})`,
          goal: "reported",
          held: true,
        },
        {
          label:
            "RSS growth over the read-only half (nothing added; the end vs the highest of its first quarter)",
          value: `${readGrowth.toFixed(3)}x`,
          goal: `at most ${READ_HALF_GROWTH}x`,
          held: readGrowth <= READ_HALF_GROWTH,
        },
        {
          label: `RSS at the end vs after warm-up (${count(addedInSoak)} records added after warm-up)`,
          value: `${(atEnd.rss / afterWarmup.rss).toFixed(3)}x (${mib(atEnd.rss)}; bound ${mib(endBound)})`,
          goal: `at most ${END_RATIO}x + ${ITEM_ALLOWANCE / 1024} KiB per record added`,
          held: atEnd.rss <= endBound,
        },
        {
          label: "open file descriptors after warm-up / at the end",
          value: `${afterWarmup.fds} / ${atEnd.fds}`,
          goal: `end at most ${FD_SLACK} over after warm-up`,
          held: atEnd.fds <= afterWarmup.fds + FD_SLACK,
        },
        {
          label: "hub exit code on SIGTERM after the soak",
          value: String(stop.code ?? stop.signal),
          goal: "0",
          held: stop.code === 0,
        },
      ],
      notes: [
        `open descriptors by kind after warm-up: ${describeKinds(kindsAfterWarmup)}; at the end: ${describeKinds(kindsAtEnd)}`,
        ...[...errorKinds].map(([name, n]) => `error: ${name} (${count(n)})`),
        `The hub runs with a ${OLD_SPACE_MIB} MiB V8 old space, so that RSS follows what is live rather than how lazily V8 collects (a leak still grows, then fails). Pools grow while the soak adds records, so memory is judged twice: flat (within 10%) over the read-only half, when nothing is added and any growth is a leak (its baseline is the highest RSS of that half's first quarter, as the last writes settle and V8 grows its heap in steps); and over the whole soak, within 1.25x of the value after warm-up plus 16 KiB per record added, a generous cost for one record in a pool index.`,
      ],
    };
  },
};

/** @param {Map<string, number>} kinds */
const describeKinds = (kinds) =>
  [...kinds]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
