// The open-source flavour reproduces steel-browser 0.5.2's facts (design decision 9): one session at a time, a create
// releases the current one, release ignores the id, timeout ignored, no key checked, an idle placeholder after each
// release, the viewer at /v1/sessions/debug.
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type SteelTestServer, startSteelTestServer } from "../src/index.js";
import { alive, leftNothing, restCall, type Site, serverPerTest, startSite, until } from "./helpers.js";

let site: Site;

beforeAll(async () => {
  site = await startSite({ "/": "<title>Open</title><p>open-source</p>" });
});
afterAll(() => site.close());

const start = serverPerTest();

function rest(server: SteelTestServer, method: string, path: string, body?: unknown) {
  return restCall(server, method, path, body, null);
}

async function list(server: SteelTestServer): Promise<Array<[string, string]>> {
  const { json } = await rest(server, "GET", "/v1/sessions");
  return (json.sessions as Array<{ id: string; status: string }>).map((s) => [s.id, s.status]);
}

describe("open-source flavour", { timeout: 90_000 }, () => {
  test("no apiKey means open-source; it starts with an idle placeholder session", async () => {
    const server = await start();
    expect(server.flavour).toBe("open-source");
    const sessions = await list(server);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.[1]).toBe("idle");
  });

  test("a second create releases the first; its Chromium is killed and its CDP client cut off", async () => {
    const server = await start();
    const [placeholder] = await list(server);
    const first = (await rest(server, "POST", "/v1/sessions", { timeout: 60_000 })).json;
    const browser = await chromium.connectOverCDP(
      `${server.url.replace("http", "ws")}/v1/devtools?sessionId=${first.id}`,
    );
    const page = await browser.newPage();
    await page.goto(`${site.url}/`);
    expect(await page.title()).toBe("Open");
    const firstPid = server.sessions().find((s) => s.id === first.id)?.chromiumPid as number;

    const second = (await rest(server, "POST", "/v1/sessions", {})).json;
    expect(second.status).toBe("live");
    await until(() => !browser.isConnected());
    expect(alive(firstPid)).toBe(false);
    expect(await list(server)).toEqual([
      [second.id, "live"],
      [first.id, "released"],
      [placeholder?.[0], "released"],
    ]);
    expect(server.sessions().find((s) => s.id === first.id)?.releaseCause).toBe("replaced by a new session");
    expect((await rest(server, "GET", `/v1/sessions/${first.id}`)).json.status).toBe("released");
  });

  test("release ignores the id: releasing an old id releases the current session, then a placeholder starts", async () => {
    const server = await start({ launch: "lazy" });
    const first = (await rest(server, "POST", "/v1/sessions", {})).json;
    const second = (await rest(server, "POST", "/v1/sessions", {})).json;
    const answer = await rest(server, "POST", `/v1/sessions/${first.id}/release`);
    expect(answer.json).toMatchObject({ success: true, id: second.id, status: "released" });
    const sessions = await list(server);
    expect(sessions[0]?.[1]).toBe("idle");
    expect(sessions[0]?.[0]).not.toBe(second.id);
    expect(sessions.find(([id]) => id === second.id)?.[1]).toBe("released");
    // A made-up id is answered as released too, as steel-browser does for any id it does not hold.
    const unknown = await rest(server, "GET", "/v1/sessions/00000000-0000-4000-8000-000000000000");
    expect(unknown).toMatchObject({ status: 200, json: { status: "released" } });
  });

  test("the timeout is kept in the answer and never enforced", async () => {
    const server = await start({ launch: "lazy" });
    const session = (await rest(server, "POST", "/v1/sessions", { timeout: 300 })).json;
    expect(session.timeout).toBe(300);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await rest(server, "GET", `/v1/sessions/${session.id}`)).json.status).toBe("live");
  });

  test("no key is checked on REST or CDP, even when the server is given one", async () => {
    const server = await start({ flavour: "open-source", apiKey: "ignored", launch: "lazy" });
    const session = (await rest(server, "POST", "/v1/sessions", {})).json;
    expect(session.status).toBe("live");
    const browser = await chromium.connectOverCDP(
      `${server.url.replace("http", "ws")}/v1/devtools?sessionId=${session.id}&apiKey=wrong`,
    );
    expect(browser.isConnected()).toBe(true);
    await browser.close();
    expect(server.requests.every((request) => request.status < 400)).toBe(true);
  });

  test("the viewer answers at /v1/sessions/debug?sessionId=<id>", async () => {
    const server = await start({ launch: "lazy" });
    const session = (await rest(server, "POST", "/v1/sessions", {})).json;
    expect(session.sessionViewerUrl).toBe(`${server.url}/v1/sessions/debug?sessionId=${session.id}`);
    const viewer = await fetch(session.sessionViewerUrl);
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get("content-type")).toContain("text/html");
    expect(await viewer.text()).toContain(`<p id=status>live</p>`);
    expect((await fetch(`${server.url}/v1/sessions/debug?sessionId=nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/ui?sessionId=${session.id}`)).status).toBe(404);
  });

  test("close() leaves no Chromium and no folder behind", async () => {
    const server = await startSteelTestServer();
    await rest(server, "POST", "/v1/sessions", {});
    const pids = server.chromiumPids();
    expect(pids).toHaveLength(1);
    await server.close();
    expect(pids.some(alive)).toBe(false);
    expect(leftNothing(server.tempRoot)).toBe(true);
  });
});
