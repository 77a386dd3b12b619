// openBrowser() end to end against the Steel test server (@kxm/steel-test-server, standing in for Steel, the outside
// service: a real Chromium per session; its test hooks forget, expire and addSession play the server's side): the
// tracker follows the server, the takeover refuses the agent while a person holds the session, the signed-in
// check gates the resume, and the sweep releases one session at a time and stops on a release that hit another.
import type { KxmError } from "@kxm/contract";
import { startSteelTestServer } from "@kxm/steel-test-server";
import { expectKxmRejection, tempDir } from "@kxm/test-support";
import { chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import {
  type Browser,
  openBrowser,
  type SignedInCheck,
  type SteelConfig,
  type SweepEntry,
  type SweepReport,
} from "../src/index.js";
import { DEFAULT_SESSION_TIMEOUT_MS } from "../src/service.js";
import { startSite } from "./support/site.js";

const KEY = "sk-service-77c1";
let site: Awaited<ReturnType<typeof startSite>>;
const toClose: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  site = await startSite();
}, 60_000);

afterAll(async () => {
  await site?.close();
});

afterEach(async () => {
  for (const item of toClose.splice(0).reverse()) await item.close();
});

async function setUp(options: { oneAtATime?: boolean; releaseIgnoresId?: boolean; now?: () => number } = {}) {
  // oneAtATime: the open-source flavour (a create releases the previous session; it checks no key).
  const steel = await startSteelTestServer({
    apiKey: KEY,
    launch: "lazy",
    ...(options.oneAtATime ? { flavour: "open-source" as const } : {}),
    ...(options.releaseIgnoresId ? { releaseIgnoresId: true } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  toClose.push(steel);
  const remoteStatus = (id: string) => steel.sessions().find((s) => s.id === id)?.status;
  const config: SteelConfig = {
    apiUrl: steel.url,
    key: KEY,
    stateDir: await tempDir(),
    requestTimeoutMs: 10_000,
  };
  const open = (owner = "agent-1"): Browser => {
    const browser = openBrowser(config, { owner, ...(options.now ? { now: options.now } : {}) });
    toClose.push(browser);
    return browser;
  };
  return { steel, remoteStatus, config, open, browser: open() };
}

function noKey(error: KxmError): void {
  expect(error.message).not.toContain(KEY);
}

describe("openBrowser: sessions", () => {
  test("create tracks the session in AGENT_CONTROL with the owner and gives the viewer URL, without the key", async () => {
    const { browser, steel } = await setUp();
    const { session, viewerUrl, warnings } = await browser.create({ timeoutMs: 120_000 });
    expect(session).toMatchObject({
      state: "AGENT_CONTROL",
      owner: "agent-1",
      timeoutMs: 120_000,
      deployment: steel.url,
    });
    expect(viewerUrl).toBe(`${steel.url}/v1/sessions/debug?sessionId=${session.id}`);
    expect(viewerUrl).not.toContain(KEY);
    expect(warnings).toEqual([]);
    // It read the new session back and listed the sessions before and after creating it.
    expect(steel.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/sessions",
      "POST /v1/sessions",
      `GET /v1/sessions/${session.id}`,
      "GET /v1/sessions",
    ]);
    expect(steel.requests.every((r) => r.hadKey)).toBe(true);
  });

  test("without a timeout, the session gets the guide's default of 5 minutes", async () => {
    const { browser } = await setUp();
    expect((await browser.create()).session.timeoutMs).toBe(DEFAULT_SESSION_TIMEOUT_MS);
    expect(DEFAULT_SESSION_TIMEOUT_MS).toBe(300_000);
  });

  test("open-source Steel's one session at a time: a create that released the previous one says so", async () => {
    const { browser } = await setUp({ oneAtATime: true });
    const first = await browser.create();
    const second = await browser.create();
    expect(second.warnings).toEqual([
      `session ${first.session.id} was released by the server when another session was created (this deployment keeps one session at a time)`,
    ]);
    expect(browser.tracked(first.session.id)).toMatchObject({
      state: "RELEASED",
      releaseCause: "released by the server when another session was created",
    });
    const error = await expectKxmRejection(browser.cdpUrl(first.session.id), "browser_session_released");
    expect(error.message).toContain("released by the server when another session was created");
  });

  test("a session that vanished from the server is marked released; one neither side knows is not found", async () => {
    const { browser, steel } = await setUp();
    const { session } = await browser.create();
    await steel.forget(session.id);
    const status = await browser.status(session.id);
    expect(status.remote).toBeUndefined();
    expect(status.tracked).toMatchObject({ state: "RELEASED", releaseCause: "gone from the server" });
    await expectKxmRejection(browser.cdpUrl(session.id), "browser_session_released");
    await expectKxmRejection(browser.status("no-such-id"), "browser_session_not_found", 404);
  });

  test("a session that expired on the server is released for KXM too", async () => {
    const { browser, steel } = await setUp();
    const { session } = await browser.create();
    await steel.expire(session.id);
    await expectKxmRejection(browser.cdpUrl(session.id), "browser_session_released");
    expect(browser.tracked(session.id)?.releaseCause).toBe("the server says released");
  });

  test("release: by the agent or the operator, idempotent, and another opening of the tracker sees it", async () => {
    const { browser, remoteStatus, open } = await setUp();
    const { session } = await browser.create();
    const released = await browser.release(session.id, "operator");
    expect(released).toMatchObject({ state: "RELEASED", releaseCause: "released by the operator" });
    expect(remoteStatus(session.id)).toBe("released");
    await expect(browser.release(session.id, "agent")).resolves.toMatchObject({
      releaseCause: "released by the operator",
    });
    expect(open("other").tracked(session.id)?.state).toBe("RELEASED");
    await expectKxmRejection(browser.release("no-such-id", "agent"), "browser_session_not_found");
  });

  test("list merges the server's sessions and the tracker's rows, by id", async () => {
    const { browser, steel } = await setUp();
    const a = await browser.create();
    const b = await browser.create();
    await steel.forget(a.session.id);
    const listed = await browser.list();
    const ids = [a.session.id, b.session.id].sort();
    expect(listed.map((entry) => entry.id)).toEqual(ids);
    expect(listed.find((e) => e.id === a.session.id)?.remote).toBeUndefined();
    expect(listed.find((e) => e.id === b.session.id)?.remote?.status).toBe("live");
  });

  test("the CDP URL carries the key; an untracked live session is adopted", async () => {
    const { browser, steel } = await setUp();
    const { session } = await browser.create();
    const url = await browser.cdpUrl(session.id);
    expect(url).toBe(`ws://${new URL(steel.url).host}/v1/devtools?sessionId=${session.id}&apiKey=${KEY}`);
    const foreign = await fetch(`${steel.url}/v1/sessions`, {
      method: "POST",
      headers: { "steel-api-key": KEY },
      body: "{}",
    }).then((r) => r.json() as Promise<{ id: string }>);
    await browser.cdpUrl(foreign.id);
    expect(browser.tracked(foreign.id)).toMatchObject({ state: "AGENT_CONTROL", owner: "agent-1" });
  });

  test("a wrong key is browser_auth_failed and never in the message", async () => {
    const { config } = await setUp();
    const wrong = openBrowser({ ...config, key: "sk-wrong-0000" });
    toClose.push(wrong);
    const error = await expectKxmRejection(wrong.create(), "browser_auth_failed");
    expect(error.message).not.toContain("sk-wrong-0000");
  });
});

describe("openBrowser: takeover", () => {
  test("the whole loop: takeover, refusals, confirmation, a failed and a passing signed-in check", async () => {
    const { browser, open } = await setUp();
    const { session } = await browser.create();
    const id = session.id;

    // The agent drives the page to the login form through the session's CDP URL.
    const agent = await chromium.connectOverCDP(await browser.cdpUrl(id));
    const page = await (agent.contexts()[0] ?? (await agent.newContext())).newPage();
    await page.goto(`${site.url}/login`);

    const takeover = await browser.requestTakeover(id, "  MFA code\nneeded ");
    expect(takeover.session).toMatchObject({ state: "HUMAN_CONTROL", reason: "MFA code needed" });
    expect(takeover.viewerUrl).not.toContain(KEY);
    for (const error of [
      await expectKxmRejection(browser.cdpUrl(id), "browser_human_control", 409),
      await expectKxmRejection(browser.requestTakeover(id, "again"), "browser_takeover_invalid", 409),
      await expectKxmRejection(browser.resume(id, { text: "x" }), "browser_takeover_invalid"),
    ]) {
      noKey(error);
    }

    // The operator, in another process (another opening of the tracker), confirms; the agent was waiting.
    const operator = open("operator");
    const waiting = browser.waitFor(id, ["VERIFY_AUTHENTICATION"], { timeoutMs: 10_000, pollMs: 20 });
    await page.goto(`${site.url}/app/home?token=abc`); // what the person did in the viewer
    await expect(operator.confirm(id)).resolves.toMatchObject({ state: "VERIFY_AUTHENTICATION" });
    await expect(waiting).resolves.toMatchObject({ state: "VERIFY_AUTHENTICATION" });
    await expectKxmRejection(operator.confirm(id), "browser_takeover_invalid");
    // In VERIFY_AUTHENTICATION the agent may look (it must, to verify).
    await expect(browser.cdpUrl(id)).resolves.toContain("apiKey=");

    const failed = await expectKxmRejection(
      browser.resume(id, { text: "Signed in as Bob" }),
      "browser_verification_failed",
    );
    expect(failed.message).toContain("back in HUMAN_CONTROL");
    expect(failed.message).not.toContain("token=abc");
    expect(browser.tracked(id)?.state).toBe("HUMAN_CONTROL");

    await operator.confirm(id);
    const signedIn: SignedInCheck = { url: "/app/home", selector: "#account", text: "Signed in as Ada" };
    const resumed = await browser.resume(id, signedIn);
    expect(resumed.state).toBe("AGENT_CONTROL");
    await expect(browser.cdpUrl(id)).resolves.toContain(id);
    await agent.close();
  });

  test("takeover arguments and untracked sessions", async () => {
    const { browser } = await setUp();
    const { session } = await browser.create();
    await expectKxmRejection(browser.requestTakeover(session.id, "   "), "invalid_usage");
    await expectKxmRejection(browser.requestTakeover(session.id, "x".repeat(501)), "invalid_usage");
    await expectKxmRejection(browser.confirm("untracked-id"), "browser_session_not_found");
    await expectKxmRejection(browser.resume(session.id, {}), "invalid_usage");
  });

  test("waitFor gives up with browser_human_control, and stops on a release", async () => {
    const { browser, open } = await setUp();
    const { session } = await browser.create();
    await browser.requestTakeover(session.id, "consent");
    const error = await expectKxmRejection(
      browser.waitFor(session.id, ["VERIFY_AUTHENTICATION"], { timeoutMs: 100, pollMs: 10 }),
      "browser_human_control",
    );
    expect(error.message).toContain("still in HUMAN_CONTROL after 100 ms");
    const waiting = browser.waitFor(session.id, ["AGENT_CONTROL"], { timeoutMs: 10_000, pollMs: 10 });
    await open("operator").release(session.id, "operator");
    await expectKxmRejection(waiting, "browser_session_released");
  });
});

describe("openBrowser: a session that expires while a person holds it", () => {
  test("waitFor notices it on the server (checked every 5 s) and fails with the cause", async () => {
    const { browser, steel } = await setUp();
    const { session } = await browser.create();
    await browser.requestTakeover(session.id, "login");
    const started = Date.now();
    const waiting = browser.waitFor(session.id, ["VERIFY_AUTHENTICATION"], { timeoutMs: 15_000, pollMs: 50 });
    await steel.forget(session.id); // the timeout ended it on the server, which then forgot it
    const error = await expectKxmRejection(waiting, "browser_session_released");
    expect(error.message).toBe(`session ${session.id} is released (gone from the server): no wait`);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The guide's recovery: a new session, and the takeover again.
    const fresh = await browser.create();
    await expect(browser.requestTakeover(fresh.session.id, "login")).resolves.toMatchObject({
      session: { state: "HUMAN_CONTROL" },
    });
  });
});

describe("openBrowser: sweep", () => {
  const MIN = 60_000;

  test("dry run lists the plan and releases nothing; the real run releases and marks", async () => {
    let now = Date.parse("2026-12-02T12:00:00Z");
    const { browser, steel, remoteStatus } = await setUp({ now: () => now });
    // Within its own timeout, so that idleness is what sweeps it (past the timeout is its own rule).
    const idle = await browser.create({ timeoutMs: 60 * MIN });
    const held = await browser.create();
    const gone = await browser.create();
    await browser.requestTakeover(held.session.id, "login");
    await steel.forget(gone.session.id);
    steel.addSession({
      id: "untracked-old",
      createdAt: new Date(now - 30 * MIN).toISOString(),
      status: "live",
    });
    steel.addSession({ id: "untracked-no-time", createdAt: undefined, status: "live" });
    now += 15 * MIN;

    const dry: SweepReport = await browser.sweep({ dryRun: true });
    expect(dry.released).toEqual([]);
    expect(remoteStatus("untracked-old")).toBe("live");
    const byId = Object.fromEntries(dry.entries.map((e: SweepEntry) => [e.id, `${e.action}: ${e.reason}`]));
    expect(byId).toEqual({
      [idle.session.id]: "release: tracked, idle for 15 minutes",
      [held.session.id]: "keep: held by a person (HUMAN_CONTROL)",
      [gone.session.id]: "mark_released: gone from the server",
      "untracked-old": "release: untracked, older than 10 minutes",
      "untracked-no-time": "keep: cannot attribute: no creation time",
    });
    expect(dry.entries.map((e) => e.id)).toEqual([...dry.entries.map((e) => e.id)].sort());
    expect(browser.tracked(gone.session.id)?.state).toBe("AGENT_CONTROL");

    const real = await browser.sweep({ dryRun: false });
    expect(real.released).toEqual([idle.session.id, "untracked-old"].sort());
    expect(real.markedReleased).toEqual([gone.session.id]);
    expect(remoteStatus("untracked-old")).toBe("released");
    expect(remoteStatus("untracked-no-time")).toBe("live");
    expect(remoteStatus(held.session.id)).toBe("live");
    expect(browser.tracked(idle.session.id)?.releaseCause).toBe("swept: tracked, idle for 15 minutes");
  });

  test("a release that released another session stops the sweep with browser_release_mismatch", async () => {
    let now = Date.parse("2026-12-02T12:00:00Z");
    const { browser, steel } = await setUp({ releaseIgnoresId: true, now: () => now });
    const inUse = await browser.create();
    for (const id of ["old-a", "old-b"]) {
      steel.addSession({ id, createdAt: new Date(now - 30 * MIN).toISOString(), status: "live" });
    }
    now += MIN;
    const error = await expectKxmRejection(browser.sweep({ dryRun: false }), "browser_release_mismatch", 502);
    const first = ["old-a", "old-b", inUse.session.id].sort().find((id) => id.startsWith("old-"));
    expect(error.message).toContain(`releasing session ${first} also released`);
    expect(error.message).toContain(inUse.session.id);
    // What it saw is in the tracker: the session in use was released by the server, not by the sweep.
    expect(browser.tracked(inUse.session.id)).toMatchObject({
      state: "RELEASED",
      releaseCause: `released by the server when session ${first} was released`,
    });
  });
});
