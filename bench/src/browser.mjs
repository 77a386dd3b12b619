// @ts-check
// The browser figures, on the Steel test server (@kxm/steel-test-server: a real Chromium per session behind Steel's
// REST API and CDP endpoint, on loopback), never on a real Steel deployment:
// 1. Session create to first CDP-driven page: create a session, attach playwright-core over CDP, load a loopback
//    page and read its title. KXM's way (@kxm/browser's openBrowser: create, which reads the new session back and
//    lists the others to verify it, then cdpUrl, then connectOverCDP) against what a user would pick instead:
//    steel-sdk (Steel's own SDK, with baseURL set to the server: without it the SDK calls Steel's cloud) plus
//    connectOverCDP on its websocketUrl, and a local chromium.launch of /usr/bin/chromium with no Steel at all.
//    The runs alternate between the three ways, each sample a fresh session (a fresh Chromium).
// 2. A sweep over 100 sessions (the server starts their Chromium lazily, so they cost nothing): sessions created on
//    the server outside KXM's tracker and older than the idle limit. KXM's sweep (plan, then one probe release read
//    back to catch a server that releases another session, then the rest eight at a time and one read at the end) against a
//    steel-sdk loop that lists the sessions (its cursor pages) and releases those past the limit, one at a time.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumFlags, startSteelTestServer } from "@kxm/steel-test-server";
import { chromium } from "playwright-core";
import Steel from "steel-sdk";
import { now, summarize } from "./measure.mjs";

const CHROMIUM = "/usr/bin/chromium";
const KEY = "bench-key";
const SESSIONS = 100;
const PAGE_TITLE = "KXM bench page";

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10) / 10;

/** Why the browser figures cannot run on this machine, or undefined when they can. */
export function browserInputsMissing() {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`;
}

/** A loopback page to load: what the agent's first navigation would fetch. */
async function startSite() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>${PAGE_TITLE}</title><h1>bench</h1>`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/**
 * Attaches over CDP, loads the page in the browser's first tab and checks its title; returns the connection.
 * @param {string} cdpUrl @param {string} pageUrl
 */
async function firstPage(cdpUrl, pageUrl) {
  const browser = await chromium.connectOverCDP(cdpUrl);
  const page = browser.contexts()[0]?.pages()[0] ?? (await browser.newPage());
  await page.goto(pageUrl);
  const title = await page.title();
  if (title !== PAGE_TITLE) throw new Error(`the page loaded with title ${JSON.stringify(title)}`);
  return browser;
}

/**
 * @param {string} mode
 * @param {typeof import("@kxm/browser").openBrowser} openBrowser
 * @param {(message: string) => void} progress
 */
export async function benchBrowser(mode, openBrowser, progress) {
  const runs = mode === "smoke" ? 1 : mode === "quick" ? 5 : 10;
  const sweeps = mode === "smoke" ? 1 : mode === "quick" ? 2 : 3;
  const scratch = mkdtempSync(join(tmpdir(), "kxm-bench-browser-"));
  const site = await startSite();
  try {
    progress(`[browser] create to first CDP-driven page, ${runs} runs of each way`);
    const firstPageFigures = await benchFirstPage(runs, openBrowser, site.url, scratch);
    progress(`[browser] sweep over ${SESSIONS} sessions, ${sweeps} runs of each way`);
    const sweep = await benchSweep(sweeps, openBrowser, scratch);
    return { firstPage: firstPageFigures, sweep };
  } finally {
    await site.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * @param {number} runs
 * @param {typeof import("@kxm/browser").openBrowser} openBrowser
 * @param {string} pageUrl
 * @param {string} scratch
 */
async function benchFirstPage(runs, openBrowser, pageUrl, scratch) {
  // Eager launch: a create answers once the session's Chromium runs, as Steel's does.
  const server = await startSteelTestServer({ apiKey: KEY, launch: "eager" });
  const kxm = openBrowser(
    { apiUrl: server.url, key: KEY, stateDir: join(scratch, "first-page"), requestTimeoutMs: 60_000 },
    { owner: "bench" },
  );
  // steel-sdk defaults to Steel's cloud: baseURL must name the deployment.
  const sdk = new Steel({ steelAPIKey: KEY, baseURL: server.url, timeout: 60_000 });
  /** @type {Record<"kxm" | "steelSdk" | "local", number[]>} */
  const samples = { kxm: [], steelSdk: [], local: [] };
  /** @type {Record<keyof typeof samples, () => Promise<number>>} */
  const ways = {
    kxm: async () => {
      const start = now();
      const { session } = await kxm.create({ timeoutMs: 120_000 });
      const browser = await firstPage(await kxm.cdpUrl(session.id), pageUrl);
      const ms = now() - start;
      await browser.close();
      await kxm.release(session.id, "agent");
      return ms;
    },
    steelSdk: async () => {
      const start = now();
      const session = await sdk.sessions.create({ timeout: 120_000 });
      const browser = await firstPage(`${session.websocketUrl}&apiKey=${KEY}`, pageUrl);
      const ms = now() - start;
      await browser.close();
      await sdk.sessions.release(session.id);
      return ms;
    },
    local: async () => {
      const start = now();
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumFlags() });
      const page = await browser.newPage();
      await page.goto(pageUrl);
      const title = await page.title();
      const ms = now() - start;
      if (title !== PAGE_TITLE) throw new Error(`the page loaded with title ${JSON.stringify(title)}`);
      await browser.close();
      return ms;
    },
  };
  try {
    // One untimed round first (disk caches, the JIT), then the timed rounds, the three ways alternating.
    for (const way of Object.values(ways)) await way();
    for (let i = 0; i < runs; i += 1) {
      for (const [name, way] of Object.entries(ways))
        samples[/** @type {keyof typeof samples} */ (name)].push(await way());
    }
    const leftLive = server.sessions().filter((session) => session.status === "live").length;
    if (leftLive > 0) throw new Error(`${leftLive} sessions were left live`);
  } finally {
    kxm.close();
    await server.close();
  }
  /** @param {number[]} list */
  const stats = (list) => {
    const s = summarize(list);
    return { n: s.n, p50: round(s.p50), p95: round(s.p95) };
  };
  return { kxm: stats(samples.kxm), steelSdk: stats(samples.steelSdk), local: stats(samples.local) };
}

/**
 * @param {number} runs
 * @param {typeof import("@kxm/browser").openBrowser} openBrowser
 * @param {string} scratch
 */
async function benchSweep(runs, openBrowser, scratch) {
  /** @type {{ kxm: number[], steelSdk: number[] }} */
  const samples = { kxm: [], steelSdk: [] };
  const idleMs = 1_000;
  for (let run = 0; run < runs; run += 1) {
    for (const way of /** @type {const} */ (["kxm", "steelSdk"])) {
      // A fresh server each time, so both ways list the same 100 sessions and nothing else.
      const server = await startSteelTestServer({ apiKey: KEY, launch: "lazy", maxSessions: SESSIONS });
      try {
        const sdk = new Steel({ steelAPIKey: KEY, baseURL: server.url, timeout: 60_000 });
        for (let i = 0; i < SESSIONS; i += 1) await sdk.sessions.create({ timeout: 600_000 });
        // Older than the idle limit, untracked: both ways must release all of them.
        await new Promise((resolve) => setTimeout(resolve, idleMs + 50));
        let released = 0;
        const start = now();
        if (way === "kxm") {
          const kxm = openBrowser(
            {
              apiUrl: server.url,
              key: KEY,
              stateDir: join(scratch, `sweep-${run}`),
              requestTimeoutMs: 60_000,
            },
            { owner: "bench" },
          );
          try {
            released = (await kxm.sweep({ dryRun: false, idleMs })).released.length;
          } finally {
            kxm.close();
          }
        } else {
          const cutoff = Date.now() - idleMs;
          const stale = [];
          for await (const session of sdk.sessions.list({ status: "live" })) {
            if (Date.parse(session.createdAt) < cutoff) stale.push(session.id);
          }
          for (const id of stale) await sdk.sessions.release(id);
          released = stale.length;
        }
        samples[way].push(now() - start);
        const leftLive = server.sessions().filter((session) => session.status === "live").length;
        if (released !== SESSIONS || leftLive !== 0) {
          throw new Error(
            `the ${way} sweep released ${released} of ${SESSIONS} sessions (${leftLive} left live)`,
          );
        }
      } finally {
        await server.close();
      }
    }
  }
  /** @param {number[]} list */
  const stats = (list) => {
    const s = summarize(list);
    return { n: s.n, p50: round(s.p50), p95: round(s.p95), perSessionMs: round(s.p50 / SESSIONS) };
  };
  return { sessions: SESSIONS, kxm: stats(samples.kxm), steelSdk: stats(samples.steelSdk) };
}
