// The test hooks: an injected clock, forget(id), addSession() for a foreign session, and releaseIgnoresId.
import { describe, expect, test } from "vitest";
import { WebSocket } from "ws";
import type { SteelTestServer } from "../src/index.js";
import { alive, devtoolsUrl, restCall, serverPerTest, until, upgradeStatus } from "./helpers.js";

const KEY = "test-key-hooks-9b2e";
const start = serverPerTest({ apiKey: KEY, launch: "lazy" });
const startOpenSource = serverPerTest({ launch: "lazy" });

function rest(server: SteelTestServer, method: string, path: string, body?: unknown) {
  return restCall(server, method, path, body, KEY);
}

async function listed(server: SteelTestServer): Promise<Array<[string, string]>> {
  const { json } = await rest(server, "GET", "/v1/sessions");
  return (json.sessions as Array<{ id: string; status: string }>).map((s) => [s.id, s.status]);
}

function cdpUrl(server: SteelTestServer, id: string): string {
  return devtoolsUrl(server, id, KEY);
}

describe("test hooks", { timeout: 60_000 }, () => {
  test("now: createdAt, duration and the release time follow the injected clock", async () => {
    let now = Date.parse("2026-01-05T08:00:00.000Z");
    const server = await start({ now: () => now });
    const created = (await rest(server, "POST", "/v1/sessions", {})).json;
    expect(created.createdAt).toBe("2026-01-05T08:00:00.000Z");
    expect(created.duration).toBe(0);
    now += 90_000;
    expect((await rest(server, "GET", `/v1/sessions/${created.id}`)).json.duration).toBe(90_000);
    await rest(server, "POST", `/v1/sessions/${created.id}/release`);
    now += 60_000;
    const released = (await rest(server, "GET", `/v1/sessions/${created.id}`)).json;
    expect(released).toMatchObject({ status: "released", duration: 90_000 });
    expect(server.sessions()[0]?.createdAt).toBe("2026-01-05T08:00:00.000Z");
  });

  test("forget(id): GET is 404, the list leaves it out, CDP is 404, and its Chromium is gone", async () => {
    const server = await start();
    const kept = (await rest(server, "POST", "/v1/sessions", {})).json;
    const gone = (await rest(server, "POST", "/v1/sessions", {})).json;
    const socket = new WebSocket(cdpUrl(server, gone.id));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const pid = server.sessions().find((s) => s.id === gone.id)?.chromiumPid as number;
    expect(alive(pid)).toBe(true);

    await server.forget(gone.id);
    await closed;
    await until(() => !alive(pid));
    expect((await rest(server, "GET", `/v1/sessions/${gone.id}`)).status).toBe(404);
    expect(await listed(server)).toEqual([[kept.id, "live"]]);
    expect(server.sessions().map((s) => s.id)).toEqual([kept.id]);
    expect(await upgradeStatus(cdpUrl(server, gone.id))).toBe(404);
    await expect(server.forget(gone.id)).rejects.toThrow(/no session/);
  });

  test("addSession: a foreign session is listed and released like any other, with or without a createdAt", async () => {
    const server = await start();
    const ours = (await rest(server, "POST", "/v1/sessions", {})).json;
    server.addSession({ id: "foreign-old", createdAt: "2026-01-01T00:00:00.000Z", status: "live" });
    server.addSession({ id: "foreign-no-time", status: "live" });
    expect(await listed(server)).toEqual([
      ["foreign-no-time", "live"],
      ["foreign-old", "live"],
      [ours.id, "live"],
    ]);
    const old = (await rest(server, "GET", "/v1/sessions/foreign-old")).json;
    expect(old).toMatchObject({ id: "foreign-old", createdAt: "2026-01-01T00:00:00.000Z", status: "live" });
    const noTime = (await rest(server, "GET", "/v1/sessions/foreign-no-time")).json;
    expect(noTime.status).toBe("live");
    expect("createdAt" in noTime).toBe(false);
    expect(server.sessions().find((s) => s.id === "foreign-no-time")?.createdAt).toBeUndefined();

    // No Chromium: CDP is refused, and nothing starts.
    expect(await upgradeStatus(cdpUrl(server, "foreign-old"))).toBe(409);
    expect(server.chromiumPids()).toEqual([]);

    await rest(server, "POST", "/v1/sessions/foreign-old/release");
    expect(server.sessions().find((s) => s.id === "foreign-old")?.status).toBe("released");
    expect(server.sessions().find((s) => s.id === ours.id)?.status).toBe("live");
    expect(() => server.addSession({ id: "foreign-old", status: "live" })).toThrow(/exists/);
    expect(() => server.addSession({ id: "x", createdAt: "yesterday", status: "live" })).toThrow(
      /not a time/,
    );
  });

  test("addSession is refused by the open-source flavour", async () => {
    const server = await startOpenSource();
    expect(() => server.addSession({ id: "foreign", status: "live" })).toThrow(/cloud flavour only/);
  });

  test("releaseIgnoresId: a release naming one session releases every live one; without it, only that one", async () => {
    const plain = await start();
    const a = (await rest(plain, "POST", "/v1/sessions", {})).json;
    const b = (await rest(plain, "POST", "/v1/sessions", {})).json;
    await rest(plain, "POST", `/v1/sessions/${a.id}/release`);
    expect(await listed(plain)).toEqual([
      [b.id, "live"],
      [a.id, "released"],
    ]);

    const server = await start({ releaseIgnoresId: true });
    const first = (await rest(server, "POST", "/v1/sessions", {})).json;
    const second = (await rest(server, "POST", "/v1/sessions", {})).json;
    server.addSession({ id: "foreign", createdAt: new Date().toISOString(), status: "live" });
    const answer = await rest(server, "POST", `/v1/sessions/${first.id}/release`);
    expect(answer).toMatchObject({ status: 200, json: { success: true, id: first.id, status: "released" } });
    expect(await listed(server)).toEqual([
      ["foreign", "released"],
      [second.id, "released"],
      [first.id, "released"],
    ]);
    expect((await rest(server, "POST", "/v1/sessions/unknown/release")).status).toBe(404);
  });
});
