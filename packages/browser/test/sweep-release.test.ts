// The sweep's releases on the Steel-compatible test server (a stand-in for a Steel deployment, which cannot run
// here; sessions are created lazily, so no Chromium starts): one probe release read back, then the rest at once
// with one read at the end; a session a person holds is kept. (A server that ignores the id is caught at the
// probe: service.test.ts.)

import { startSteelTestServer } from "@kxm/steel-test-server";
import { tempDir } from "@kxm/test-support";
import { afterEach, expect, test } from "vitest";
import { type Browser, openBrowser } from "../src/index.js";

const KEY = "sk-sweep-release-5d2e";
const MIN = 60_000;
const toClose: Array<{ close(): unknown }> = [];

afterEach(async () => {
  for (const item of toClose.splice(0).reverse()) await item.close();
});

async function setUp() {
  const steel = await startSteelTestServer({ apiKey: KEY, launch: "lazy" });
  toClose.push(steel);
  let now = Date.now();
  const browser: Browser = openBrowser(
    { apiUrl: steel.url, key: KEY, stateDir: await tempDir(), requestTimeoutMs: 10_000 },
    { owner: "agent-sweep", now: () => now },
  );
  toClose.push(browser);
  return { steel, browser, advance: (ms: number) => (now += ms) };
}

const lists = (steel: { requests: Array<{ method: string; path: string }> }) =>
  steel.requests.filter((r) => r.method === "GET" && r.path === "/v1/sessions").length;

test("twenty idle sessions: one probe release, the rest at once, three reads of the list", async () => {
  const { steel, browser, advance } = await setUp();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push((await browser.create({ timeoutMs: 60 * MIN })).session.id);
  const held = (await browser.create({ timeoutMs: 60 * MIN })).session.id;
  await browser.requestTakeover(held, "sign in");
  advance(11 * MIN);
  const before = lists(steel);
  const report = await browser.sweep({ dryRun: false, idleMs: 10 * MIN });
  expect(report.released).toEqual([...ids].sort());
  // The plan's list, the probe's read back and the final check: three, whatever the number of sessions.
  expect(lists(steel) - before).toBe(3);
  const live = steel.sessions().filter((session) => session.status === "live");
  expect(live.map((session) => session.id)).toEqual([held]);
  for (const id of ids) expect(browser.tracked(id)?.releaseCause).toBe("swept: tracked, idle for 11 minutes");
});
