// KXM against open-source Steel's facts, on the Steel test server's open-source flavour (it stands in for
// steel-browser 0.5.2: one session at a time, release ignores the id, timeout ignored, no key checked).
import { startSteelTestServer } from "@kxm/steel-test-server";
import { tempDir } from "@kxm/test-support";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openBrowser, type SteelConfig } from "../../src/index.js";

let steel: Awaited<ReturnType<typeof startSteelTestServer>>;
let config: SteelConfig;

beforeAll(async () => {
  steel = await startSteelTestServer({ flavour: "open-source", launch: "lazy" });
  config = { apiUrl: steel.url, key: "unused-by-open-source-steel", stateDir: "", requestTimeoutMs: 10_000 };
}, 60_000);
afterAll(async () => {
  await steel?.close();
});

const statusOn = (id: string) => steel.sessions().find((session) => session.id === id)?.status;

test("releasing a session a create replaced leaves the current one alone, though the server ignores the id", async () => {
  const browser = openBrowser({ ...config, stateDir: await tempDir("kxm-oss-release-") });
  try {
    const first = await browser.create();
    const second = await browser.create();
    expect(second.warnings).toEqual([
      `session ${first.session.id} was released by the server when another session was created (this deployment keeps one session at a time)`,
    ]);
    const released = await browser.release(first.session.id, "agent");
    expect(released).toMatchObject({
      state: "RELEASED",
      releaseCause: "released by the server when another session was created",
    });
    expect(statusOn(second.session.id)).toBe("live");
    expect(steel.requests.filter((r) => r.method === "POST" && r.path.endsWith("/release"))).toEqual([]);
    await browser.release(second.session.id, "agent");
    expect(statusOn(second.session.id)).toBe("released");
  } finally {
    browser.close();
  }
});

test("a tracked session past the timeout the server ignored is swept", async () => {
  let now = Date.now();
  const browser = openBrowser({ ...config, stateDir: await tempDir("kxm-oss-timeout-") }, { now: () => now });
  try {
    const { session } = await browser.create({ timeoutMs: 60_000 });
    now += 61_000;
    expect(statusOn(session.id)).toBe("live");
    const report = await browser.sweep({ dryRun: false });
    expect(report.entries.find((entry) => entry.id === session.id)).toEqual({
      id: session.id,
      action: "release",
      tracked: true,
      reason: "tracked, past its timeout of 1 minute (the server did not end it)",
    });
    expect(report.released).toEqual([session.id]);
    expect(statusOn(session.id)).toBe("released");
  } finally {
    browser.close();
  }
});
