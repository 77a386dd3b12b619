// The cloud flavour: keys on REST and CDP, playwright-core through the proxy, timeouts, lists, one-shot pages.
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WebSocket } from "ws";
import { type SteelTestServer, startSteelTestServer } from "../src/index.js";
import {
  alive,
  devtoolsUrl,
  leftNothing,
  restCall,
  type Site,
  serverPerTest,
  startSite,
  until,
  upgradeStatus,
} from "./helpers.js";

const KEY = "test-key-4f1d";
let site: Site;

beforeAll(async () => {
  site = await startSite({
    "/": "<title>Home</title><h1>Hello</h1><p>Some <b>bold</b> text and a <a href='/next'>link</a>.</p>",
    "/next": "<title>Next</title><p>second page</p>",
  });
});
afterAll(() => site.close());

const start = serverPerTest({ apiKey: KEY });

function rest(
  server: SteelTestServer,
  method: string,
  path: string,
  body?: unknown,
  key: string | null = KEY,
) {
  return restCall(server, method, path, body, key);
}

function cdpUrl(server: SteelTestServer, id: string, key = KEY): string {
  return devtoolsUrl(server, id, key);
}

describe("cloud flavour", { timeout: 90_000 }, () => {
  test("a session is a real Chromium that playwright-core drives through the CDP proxy", async () => {
    const server = await start();
    const created = await rest(server, "POST", "/v1/sessions", { timeout: 60_000 });
    expect(created.status).toBe(200);
    const session = created.json;
    expect(session).toMatchObject({ status: "live", timeout: 60_000 });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(session.createdAt).toISOString()).toBe(session.createdAt);
    expect(session.websocketUrl).toBe(
      `${server.url.replace("http", "ws")}/v1/devtools?sessionId=${session.id}`,
    );
    expect(session.debugUrl).toBe(`${server.url}/v1/sessions/debug?sessionId=${session.id}`);
    expect(JSON.stringify(session)).not.toContain(KEY);

    const browser = await chromium.connectOverCDP(cdpUrl(server, session.id));
    const page = browser.contexts()[0]?.pages()[0] ?? (await browser.newPage());
    await page.goto(`${site.url}/`);
    expect(await page.title()).toBe("Home");
    await page.click("a");
    await page.waitForURL(`${site.url}/next`);
    expect(await page.textContent("p")).toBe("second page");
    const [view] = server.sessions();
    expect(view?.cdpConnections).toBe(1);
    const pid = view?.chromiumPid as number;
    expect(alive(pid)).toBe(true);

    const viewer = await fetch(`${server.url}/v1/sessions/debug?sessionId=${session.id}`);
    expect(viewer.status).toBe(200);
    const html = await viewer.text();
    expect(html).toContain(session.id);
    expect(html).toContain(`${site.url}/next`);

    const released = await rest(server, "POST", `/v1/sessions/${session.id}/release`);
    expect(released).toMatchObject({ status: 200, json: { success: true, status: "released" } });
    await until(() => !browser.isConnected());
    expect(alive(pid)).toBe(false);
    expect((await rest(server, "GET", `/v1/sessions/${session.id}`)).json.status).toBe("released");
    expect(await upgradeStatus(cdpUrl(server, session.id))).toBe(410);
  });

  test("REST reads the key from steel-api-key only: none, x-steel-api-key or a wrong one is 401", async () => {
    const server = await start();
    const none = await rest(server, "GET", "/v1/sessions", undefined, null);
    expect(none).toEqual({
      status: 401,
      json: { statusCode: 401, error: "Unauthorized", message: expect.stringContaining("steel-api-key") },
    });
    const guideHeader = await fetch(`${server.url}/v1/sessions`, { headers: { "x-steel-api-key": KEY } });
    expect(guideHeader.status).toBe(401);
    expect((await rest(server, "GET", "/v1/sessions", undefined, "wrong")).status).toBe(401);
    expect((await rest(server, "GET", "/v1/sessions", undefined, `${KEY}x`)).status).toBe(401);
    expect((await rest(server, "GET", "/v1/sessions")).status).toBe(200);
    expect(server.requests.map((r) => [r.path, r.hadKey, r.status])).toEqual([
      ["/v1/sessions", false, 401],
      ["/v1/sessions", false, 401],
      ["/v1/sessions", true, 401],
      ["/v1/sessions", true, 401],
      ["/v1/sessions", true, 200],
    ]);
    // Nothing was created by the refused requests, and no answer names the key.
    expect(server.sessions()).toEqual([]);
    expect(JSON.stringify(none.json)).not.toContain(KEY);
  });

  test("CDP checks apiKey: a bad or missing key refuses the upgrade with 401, and no browser starts", async () => {
    const server = await start({ launch: "lazy" });
    const { json: session } = await rest(server, "POST", "/v1/sessions", {});
    expect(await upgradeStatus(cdpUrl(server, session.id, "wrong"))).toBe(401);
    expect(
      await upgradeStatus(`${server.url.replace("http", "ws")}/v1/devtools?sessionId=${session.id}`),
    ).toBe(401);
    await expect(
      chromium.connectOverCDP(cdpUrl(server, session.id, "wrong"), { timeout: 5_000 }),
    ).rejects.toThrow(/401/);
    expect(server.chromiumPids()).toEqual([]);
    expect(await upgradeStatus(cdpUrl(server, "00000000-0000-4000-8000-000000000000"))).toBe(404);
    expect(await upgradeStatus(`${server.url.replace("http", "ws")}/v1/other?apiKey=${KEY}`)).toBe(404);
    expect(await upgradeStatus(cdpUrl(server, session.id))).toBe(101);
    // The recorded CDP requests carry the path only, never the query that holds the key.
    expect(server.requests.filter((r) => r.path === "/v1/devtools").map((r) => [r.hadKey, r.status])).toEqual(
      [
        [true, 401],
        [false, 401],
        [true, 401],
        [true, 404],
        [true, 101],
      ],
    );
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
  });

  test("a session ends at its timeout: released, its Chromium killed, its CDP client cut off", async () => {
    const server = await start({ launch: "lazy" });
    const { json: session } = await rest(server, "POST", "/v1/sessions", { timeout: 8_000 });
    const socket = new WebSocket(cdpUrl(server, session.id));
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const pid = server.sessions()[0]?.chromiumPid as number;
    expect(alive(pid)).toBe(true);
    expect((await rest(server, "GET", `/v1/sessions/${session.id}`)).json.status).toBe("live");
    await closed;
    expect(Date.now() - Date.parse(session.createdAt)).toBeGreaterThanOrEqual(7_900);
    expect(server.sessions()[0]).toMatchObject({ status: "released", releaseCause: "timeout" });
    expect(alive(pid)).toBe(false);
    expect((await rest(server, "GET", `/v1/sessions/${session.id}`)).json.status).toBe("released");
  });

  test("expire(id) ends one session now and leaves the others live", async () => {
    const server = await start({ launch: "lazy" });
    const first = (await rest(server, "POST", "/v1/sessions", {})).json;
    const second = (await rest(server, "POST", "/v1/sessions", {})).json;
    await server.expire(first.id);
    const list = (await rest(server, "GET", "/v1/sessions")).json.sessions as Array<{
      id: string;
      status: string;
    }>;
    expect(list.map((s) => [s.id, s.status])).toEqual([
      [second.id, "live"],
      [first.id, "released"],
    ]);
    expect(server.sessions().find((s) => s.id === first.id)?.releaseCause).toBe("expired");
  });

  test("errors answer JSON like Steel: unknown id 404, bad timeout 400, bad JSON 400, over the limit 429", async () => {
    const server = await start({ launch: "lazy", maxSessions: 2 });
    const unknown = await rest(server, "GET", "/v1/sessions/00000000-0000-4000-8000-000000000000");
    expect(unknown).toEqual({
      status: 404,
      json: { statusCode: 404, error: "Not Found", message: expect.stringContaining("not found") },
    });
    expect((await rest(server, "POST", "/v1/sessions/nope/release")).status).toBe(404);
    expect((await rest(server, "POST", "/v1/sessions", { timeout: -1 })).status).toBe(400);
    expect((await rest(server, "POST", "/v1/sessions", { timeout: "5" })).status).toBe(400);
    const badJson = await fetch(`${server.url}/v1/sessions`, {
      method: "POST",
      headers: { "steel-api-key": KEY },
      body: "{",
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { message: string }).message).toBe("Body is not valid JSON");
    expect((await rest(server, "POST", "/v1/sessions", {})).status).toBe(200);
    expect((await rest(server, "POST", "/v1/sessions", {})).status).toBe(200);
    expect((await rest(server, "POST", "/v1/sessions", {})).status).toBe(429);
    expect((await rest(server, "GET", "/v1/nothing")).status).toBe(404);
  });

  test("the list pages with limit and cursorId (steel-sdk's cursor) and filters by status", async () => {
    const server = await start({ launch: "lazy" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await rest(server, "POST", "/v1/sessions", {})).json.id);
    await rest(server, "POST", `/v1/sessions/${ids[0]}/release`);
    const newestFirst = [...ids].reverse();
    const first = (await rest(server, "GET", "/v1/sessions?limit=2")).json;
    expect(first.sessions.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.nextCursor).toBe(newestFirst[1]);
    const second = (await rest(server, "GET", `/v1/sessions?limit=2&cursorId=${first.nextCursor}`)).json;
    expect(second.sessions.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));
    const all = (await rest(server, "GET", "/v1/sessions")).json;
    expect(all.sessions).toHaveLength(5);
    expect(all.nextCursor).toBeNull();
    const live = (await rest(server, "GET", "/v1/sessions?status=live")).json;
    expect(live.sessions.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 4));
    expect((await rest(server, "GET", "/v1/sessions?status=gone")).status).toBe(400);
    const releasedAll = await rest(server, "POST", "/v1/sessions/release");
    expect(releasedAll.json).toMatchObject({ success: true, message: "Released 4 sessions" });
    expect(server.sessions().every((s) => s.status === "released")).toBe(true);
  });

  test("lazy launch: a hundred sessions start no browser; the first CDP connection starts one", async () => {
    const server = await start({ launch: "lazy" });
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 1) ids.push((await rest(server, "POST", "/v1/sessions", {})).json.id);
    expect(server.chromiumPids()).toEqual([]);
    const browser = await chromium.connectOverCDP(cdpUrl(server, ids[42] as string));
    const page = await browser.newPage();
    await page.goto(`${site.url}/next`);
    expect(await page.title()).toBe("Next");
    expect(server.chromiumPids()).toHaveLength(1);
    await browser.close();
  });

  test("scrape and screenshot load a loopback page in a throwaway browser", async () => {
    const server = await start();
    const scraped = await rest(server, "POST", "/v1/scrape", {
      url: `${site.url}/`,
      format: ["html", "markdown", "text"],
    });
    expect(scraped.status).toBe(200);
    expect(scraped.json.content.html).toContain("<h1>Hello</h1>");
    expect(scraped.json.content.markdown).toBe(
      `# Hello\n\nSome **bold** text and a [link](${site.url}/next).`,
    );
    expect(scraped.json.content.text).toContain("Some bold text and a link.");
    expect(scraped.json.metadata).toMatchObject({
      title: "Home",
      statusCode: 200,
      urlSource: `${site.url}/`,
    });
    expect(scraped.json.links).toEqual([{ url: `${site.url}/next`, text: "link" }]);
    const one = await rest(server, "POST", "/v1/scrape", { url: `${site.url}/next`, format: "text" });
    expect(one.json.content).toEqual({ text: "second page" });
    expect((await rest(server, "POST", "/v1/scrape", { url: "not a url" })).status).toBe(400);
    expect((await rest(server, "POST", "/v1/scrape", { url: `${site.url}/`, format: "pdf" })).status).toBe(
      400,
    );

    const shot = await fetch(`${server.url}/v1/screenshot`, {
      method: "POST",
      headers: { "steel-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/`, fullPage: true }),
    });
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await shot.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(server.sessions()).toEqual([]);
    expect(server.chromiumPids()).toHaveLength(1);
  });

  test("close() kills every Chromium (sessions, half-started ones and the page browser) and removes its folder", async () => {
    const server = await startSteelTestServer({ apiKey: KEY });
    const a = (await rest(server, "POST", "/v1/sessions", {})).json;
    await rest(server, "POST", "/v1/sessions", {});
    const browser = await chromium.connectOverCDP(cdpUrl(server, a.id));
    await rest(server, "POST", "/v1/scrape", { url: `${site.url}/` });
    const pids = server.chromiumPids();
    expect(pids).toHaveLength(3);
    expect(pids.every(alive)).toBe(true);
    await server.close();
    await server.close(); // twice is fine
    expect(pids.some(alive)).toBe(false);
    expect(leftNothing(server.tempRoot)).toBe(true);
    await until(() => !browser.isConnected());
    await expect(fetch(`${server.url}/v1/sessions`)).rejects.toThrow();
  });
});
