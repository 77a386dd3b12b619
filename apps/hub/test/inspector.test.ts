import { createHash } from "node:crypto";
import { itemTokens } from "@kxm/arbiter";
import { type ContextItem, LIMITS, type StepManifest } from "@kxm/contract";
import { deriveContextItem } from "@kxm/provenance";
import type { LightMyRequestResponse } from "fastify";
import { describe, expect, test } from "vitest";
import { leaked, secretCases } from "../../../reliability/src/lib/secrets-corpus.mjs";
import { readHubEnv } from "../src/env.js";
import { INSPECTOR_CSP } from "../src/inspector/routes.js";
import { ADMIN_TOKEN, call, GUIDE_PROPOSAL, hubPerTest, plantItems, projectWithAgent } from "./helpers.js";

// The inspector's pages through inject: sign-in and sessions, the headers of every response, escaping of the
// records' text, and error pages. The browser test (inspector-browser.test.ts) drives the same pages in Chromium.

const hub = hubPerTest();

const HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>";
const HOSTILE_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;";
const TASK = "Which branch do we release from?";
const REFUSED = "That is not the admin token or an active operator token.";
const FORM = { "content-type": "application/x-www-form-urlencoded" };

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

async function signIn(token: string): Promise<LightMyRequestResponse> {
  return hub.app.inject({
    method: "POST",
    url: "/inspector/sign-in",
    headers: FORM,
    payload: form({ token }),
  });
}

/** Signs in and answers the cookie header to send back and the session's form token. */
async function session(token = ADMIN_TOKEN): Promise<{ cookie: string; csrf: string }> {
  const signedIn = await signIn(token);
  expect(signedIn.statusCode, signedIn.body).toBe(303);
  const cookie = String(signedIn.headers["set-cookie"]).split(";")[0]!;
  const page = await get("/inspector", cookie);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { cookie, csrf: csrf! };
}

function get(url: string, cookie?: string): Promise<LightMyRequestResponse> {
  return hub.app.inject({ method: "GET", url, headers: cookie === undefined ? {} : { cookie } });
}

function post(
  url: string,
  cookie: string,
  fields: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return hub.app.inject({
    method: "POST",
    url,
    headers: { ...FORM, cookie, ...extra },
    payload: form(fields),
  });
}

/**
 * Project `demo` with a promoted state value whose summary is hostile markup, a knowledge item derived from it
 * (planted, as no route admits derived items), the proposal it consumed, one served packet, and a revoked item.
 */
async function records() {
  await hub.start();
  const key = await projectWithAgent(hub.app, "demo");
  await projectWithAgent(hub.app, "empty", "agent-empty");
  // The proposal's id too, which the promotion's answer does not give: made here rather than by proposeAndPromote.
  const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
    ...GUIDE_PROPOSAL,
    summary: `Releases are cut from the main branch ${HOSTILE}`,
  });
  const proposalId: string = proposed.json().proposalId;
  const promoted = await call(
    hub.app,
    "POST",
    `/v1/projects/demo/state/proposals/${proposalId}/promote`,
    ADMIN_TOKEN,
    { evidenceRefs: ["review:pr-12"] },
  );
  const state = promoted.json().state as ContextItem;
  const derived = deriveContextItem(
    {
      id: "derived_release_gate",
      kind: "knowledge",
      project: "demo",
      summary: "Tags wait for the release branch",
    },
    "evidence",
    [state],
  );
  const unrelated: ContextItem = { ...derived, id: "derived_unrelated", summary: "An item revoked below" };
  plantItems(hub.dbPath, [derived, unrelated], "2026-10-01T09:00:00.000Z");
  const revoked = await call(hub.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, {
    target: "item",
    value: unrelated.id,
    reason: "planted for the inspector test",
  });
  expect(revoked.statusCode, revoked.body).toBe(201);
  const competing: string[] = [];
  for (const summary of ["Releases freeze on Fridays", "Releases never freeze"]) {
    const made = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      key: "release.freeze",
      summary,
    });
    competing.push(made.json().proposalId);
  }
  const served = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
    role: "planner",
    task: TASK,
  });
  expect(served.statusCode, served.body).toBe(200);
  return {
    key,
    proposalId,
    state,
    derived,
    competing,
    packetId: served.json().audit.packetId as string,
  };
}

describe("signing in", () => {
  test("a page without a session redirects to the sign-in, a form post too", async () => {
    const { packetId } = await records();
    for (const url of [
      "/inspector",
      "/inspector/",
      "/inspector/projects/demo/packets",
      `/inspector/projects/demo/packets/${packetId}`,
    ]) {
      const response = await get(url);
      expect([url, response.statusCode, response.headers.location]).toEqual([url, 303, "/inspector/sign-in"]);
    }
    const forged = await get("/inspector", "kxm_inspector=not-a-session");
    expect(forged.headers.location).toBe("/inspector/sign-in");
    const replay = await post(`/inspector/projects/demo/packets/${packetId}/replay`, "", { task: TASK });
    expect([replay.statusCode, replay.headers.location]).toEqual([303, "/inspector/sign-in"]);
  });

  test("sets an HttpOnly, SameSite=Strict session cookie holding a random id, not the token, not Secure on http", async () => {
    await hub.start();
    const response = await signIn(ADMIN_TOKEN);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe("/inspector");
    const cookie = String(response.headers["set-cookie"]);
    expect(cookie).toMatch(
      /^kxm_inspector=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/inspector; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(ADMIN_TOKEN);
    const again = String((await signIn(ADMIN_TOKEN)).headers["set-cookie"]);
    expect(again.split(";")[0]).not.toBe(cookie.split(";")[0]);
    const page = await get("/inspector", cookie.split(";")[0]);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Signed in as the admin");
  });

  test("KXM_INSPECTOR_SECURE_COOKIE=1 sets the cookie Secure on plain http, as behind a TLS proxy", async () => {
    const values: Array<[string | undefined, boolean]> = [
      [undefined, false],
      ["", false],
      ["0", false],
      ["false", false],
      ["1", true],
      ["true", true],
    ];
    for (const [value, secure] of values) {
      const env = readHubEnv(value === undefined ? {} : { KXM_INSPECTOR_SECURE_COOKIE: value });
      expect([value, env.inspectorSecureCookie]).toEqual([value, secure]);
    }
    for (const bad of ["yes", "on", "2", " 1"]) {
      expect(() => readHubEnv({ KXM_INSPECTOR_SECURE_COOKIE: bad })).toThrow(
        expect.objectContaining({
          code: "invalid_usage",
          message: "environment variable KXM_INSPECTOR_SECURE_COOKIE must be 1 or 0 (or true or false)",
        }),
      );
    }
    const { inspectorSecureCookie } = readHubEnv({ KXM_INSPECTOR_SECURE_COOKIE: "1" });
    await hub.start({ inspectorSecureCookie });
    const response = await signIn(ADMIN_TOKEN);
    expect(response.statusCode).toBe(303);
    const cookie = String(response.headers["set-cookie"]);
    expect(cookie).toMatch(
      /^kxm_inspector=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/inspector; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect((await get("/inspector", cookie.split(";")[0])).statusCode).toBe(200);
  });

  test("refuses an agent key, a wrong token and an empty form alike, and never sets a cookie", async () => {
    const { key } = await records();
    const answers = [await signIn(key), await signIn("not-a-token"), await signIn(`kxo_${"a".repeat(43)}`)];
    answers.push(
      await hub.app.inject({ method: "POST", url: "/inspector/sign-in", headers: FORM, payload: "" }),
    );
    for (const answer of answers) {
      expect(answer.statusCode).toBe(401);
      expect(answer.headers["set-cookie"]).toBeUndefined();
      expect(answer.body).toContain(REFUSED);
      expect(answer.body).not.toContain(key);
    }
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
  });

  test("an operator signs in; revoking the operator ends the session at its next request", async () => {
    await hub.start();
    const created = await call(hub.app, "POST", "/v1/operators", ADMIN_TOKEN, { name: "ops" });
    expect(created.statusCode, created.body).toBe(201);
    const { cookie } = await session(created.json().token);
    expect((await get("/inspector", cookie)).body).toContain("Signed in as operator ops");
    await call(hub.app, "DELETE", "/v1/operators/ops", ADMIN_TOKEN);
    const after = await get("/inspector", cookie);
    expect([after.statusCode, after.headers.location]).toEqual([303, "/inspector/sign-in"]);
    expect((await signIn(created.json().token)).statusCode).toBe(401);
  });

  test("a session expires after 12 hours", async () => {
    await hub.start();
    const { cookie } = await session();
    hub.clock.advance(12 * 60 * 60 * 1000 - 1);
    expect((await get("/inspector", cookie)).statusCode).toBe(200);
    hub.clock.advance(1);
    expect((await get("/inspector", cookie)).headers.location).toBe("/inspector/sign-in");
  });

  test("a session is kept in the database: another hub on it knows the session, one with another admin token does not", async () => {
    await hub.start();
    const { cookie, csrf } = await session();
    // Only the id's SHA-256 is stored, never the cookie's id or the form token.
    const id = cookie.split("=")[1]!;
    const rows = hub.store as unknown as { findInspectorSession(hash: string, now: Date): Promise<unknown> };
    expect(
      await rows.findInspectorSession(createHash("sha256").update(id).digest("hex"), hub.clock.now()),
    ).toMatchObject({
      user: { kind: "admin" },
    });
    // A restarted hub (or another worker on the same file) serves the same session, with the same form token.
    await hub.close();
    await hub.reopen();
    const page = await get("/inspector", cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`name="csrf" value="${csrf}"`);
    // A hub started with another admin token does not know it, and drops it.
    await hub.close();
    await hub.reopen({ adminToken: `${ADMIN_TOKEN}-rotated` });
    expect((await get("/inspector", cookie)).headers.location).toBe("/inspector/sign-in");
    await hub.close();
    await hub.reopen();
    expect((await get("/inspector", cookie)).headers.location).toBe("/inspector/sign-in");
    // A cookie that is not the shape of a session id is no session, and never reaches the store.
    expect((await get("/inspector", "kxm_inspector=%27%20or%201%3D1")).headers.location).toBe(
      "/inspector/sign-in",
    );
  });

  test("signing out needs the session's form token, and ends the session", async () => {
    await hub.start();
    const { cookie, csrf } = await session();
    for (const fields of [{}, { csrf: "wrong" }, { csrf: `${csrf}x` }] as Record<string, string>[]) {
      const refused = await post("/inspector/sign-out", cookie, fields);
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain("the form is out of date");
    }
    expect((await get("/inspector", cookie)).statusCode).toBe(200);
    const out = await post("/inspector/sign-out", cookie, { csrf });
    expect([out.statusCode, out.headers.location]).toEqual([303, "/inspector/sign-in"]);
    expect(String(out.headers["set-cookie"])).toMatch(/^kxm_inspector=; Max-Age=0; Path=\/inspector/);
    expect((await get("/inspector", cookie)).headers.location).toBe("/inspector/sign-in");
  });

  test("sign-in counts against the hub's rate limit, and no token reaches the log", async () => {
    await hub.start({ rateLimit: { max: 3, timeWindowMs: 60_000 } });
    const answers = [
      await signIn("wrong-1"),
      await signIn("wrong-2"),
      await signIn(ADMIN_TOKEN),
      await signIn(ADMIN_TOKEN),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 303, 429]);
    expect(answers[3]!.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answers[3]!.body).toContain("<code>rate_limited</code>");
    const log = hub.rawLogs.join("");
    for (const secret of ["wrong-1", "wrong-2", ADMIN_TOKEN]) expect(log).not.toContain(secret);
    expect(
      hub.logs.filter((line) => line.event === "request").map((line) => [line.route, line.status]),
    ).toEqual([
      ["/inspector/sign-in", 401],
      ["/inspector/sign-in", 401],
      ["/inspector/sign-in", 303],
      ["/inspector/sign-in", 429],
    ]);
  });

  test("a hub without an admin token has no inspector to sign in to", async () => {
    await hub.start({ noAdmin: true });
    for (const response of [await get("/inspector/sign-in"), await signIn("anything")]) {
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain("its inspector is off");
    }
  });
});

describe("every response", () => {
  test("carries the content security policy and the other headers; pages are never cached", async () => {
    const { packetId, state } = await records();
    const { cookie } = await session();
    const pages = [
      "/inspector/sign-in",
      "/inspector",
      "/inspector/projects/demo/packets",
      `/inspector/projects/demo/packets/${packetId}`,
      `/inspector/projects/demo/items/${state.id}`,
      "/inspector/projects/demo/state",
      "/inspector/projects/demo/state/release.branch?asOf=2026-10-02T00:00:00Z",
      "/inspector/projects/demo/runs",
      "/inspector/projects/nope/packets",
      "/inspector/no-such-page",
    ];
    for (const url of pages) {
      const response = await get(url, cookie);
      expect(response.headers["content-type"], url).toBe("text/html; charset=utf-8");
      expect(response.headers["content-security-policy"], url).toBe(INSPECTOR_CSP);
      expect(response.headers["x-content-type-options"], url).toBe("nosniff");
      expect(response.headers["referrer-policy"], url).toBe("no-referrer");
      expect(response.headers["cache-control"], url).toBe("no-store");
      // No inline script or style: every script and stylesheet is a file of the hub's own.
      expect(response.body, url).not.toMatch(/<script(?![^>]*\ssrc=")|<style|<[a-z][^>]*\s(style|on[a-z]+)=/);
    }
    expect(INSPECTOR_CSP.startsWith("default-src 'self';")).toBe(true);
    const htmx = await get("/inspector/assets/htmx.min.js");
    expect(htmx.statusCode).toBe(200);
    expect(htmx.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(htmx.body).toContain("htmx");
    const css = await get("/inspector/assets/inspector.css");
    expect([css.statusCode, css.headers["content-type"]]).toEqual([200, "text/css; charset=utf-8"]);
    for (const asset of [htmx, css]) {
      expect(asset.headers["content-security-policy"]).toBe(INSPECTOR_CSP);
      expect(asset.headers["x-content-type-options"]).toBe("nosniff");
    }
  });
});

describe("the pages", () => {
  test("the projects page shows each project's served and withheld records, and why they are withheld", async () => {
    await records();
    const { cookie } = await session();
    const body = (await get("/inspector", cookie)).body;
    const rows = [
      ...body.matchAll(
        /<tr>\n<th scope="row">([^<]+)<\/th>\n<td>([^<]*)<\/td>\n<td class="num">(\d+)<\/td>\n<td class="num">(\d+)<\/td>\n<td>([^<]*)<\/td>/g,
      ),
    ];
    expect(rows.map((row) => row.slice(1))).toEqual([
      ["demo", "no checkout", "5", "0", "revoked: 1"],
      ["empty", "no checkout", "0", "0", "nothing"],
    ]);
  });

  test("a record's text is escaped wherever it shows", async () => {
    const { packetId, state } = await records();
    const { cookie } = await session();
    for (const url of [
      `/inspector/projects/demo/packets/${packetId}`,
      `/inspector/projects/demo/items/${state.id}`,
      "/inspector/projects/demo/state",
      "/inspector/projects/demo/state/release.branch?asOf=2026-10-02T00:00:00Z",
    ]) {
      const { body, statusCode } = await get(url, cookie);
      expect(statusCode, url).toBe(200);
      expect(body, url).toContain(`Releases are cut from the main branch ${HOSTILE_ESCAPED}`);
      expect(body, url).not.toContain("<script>alert");
      expect(body, url).not.toContain("<img src=x");
    }
    // An id in the path is text too: it is refused without being repeated.
    const hostileId = await get(`/inspector/projects/demo/items/${encodeURIComponent(HOSTILE)}`, cookie);
    expect(hostileId.statusCode).toBe(404);
    expect(hostileId.body).not.toContain("<script>alert");
  });

  test("a packet page shows each section's items with scores, the near misses, gaps and memory", async () => {
    const { packetId, state, proposalId } = await records();
    const { cookie } = await session();
    const body = (await get(`/inspector/projects/demo/packets/${packetId}`, cookie)).body;
    const stored = (await call(hub.app, "GET", `/v1/projects/demo/packets/${packetId}`, ADMIN_TOKEN)).json()
      .packet;
    expect(stored.sections.currentState).toEqual([state.id]);
    const score = stored.audit.relevance.selected[stored.audit.selectedIds.indexOf(state.id)];
    expect(body).toContain("<h3>Current state (1)</h3>");
    // Its ranking keys and what it costs on its own, as the near misses count tokens.
    const time = [state.observedAt, state.validFrom].filter(Boolean).sort().at(-1);
    expect(body).toContain(
      `<td class="num">${score}</td>\n<td><a href="/inspector/projects/demo/items/${state.id}"><code>${state.id}</code></a></td>\n<td>state</td>\n<td>no</td>\n<td>${state.confidence}</td>\n<td>${state.authority}</td>\n<td><time datetime="${time}">${time}</time></td>\n<td class="num">${itemTokens(state)}</td>`,
    );
    const miss = stored.audit.nearMisses.find((entry: { id: string }) => entry.id === proposalId);
    expect(miss).toMatchObject({ reason: "superseded", kind: "state" });
    expect(body).toContain(
      `<td class="num">${miss.score}</td>\n<td><a href="/inspector/projects/demo/items/${proposalId}"><code>${proposalId}</code></a></td>\n<td>state</td>\n<td>superseded</td>\n<td class="num">${miss.tokens}</td>`,
    );
    expect(stored.audit.unresolvedGaps).toEqual(["items_withheld:revoked:1"]);
    expect(body).toContain("<li><code>items_withheld:revoked:1</code></li>");
    expect(body).toContain("<dt>Memory</dt><dd>no checkout</dd>");
    expect(body).toContain(`<dt>Task</dt><dd>${TASK.length} characters`);
    const list = (await get("/inspector/projects/demo/packets", cookie)).body;
    expect(list).toContain(
      `<a href="/inspector/projects/demo/packets/${packetId}"><code>${packetId}</code></a>`,
    );
  });

  test("the packets page pages by the store's cursor", async () => {
    const { key } = await records();
    for (const task of ["first other task", "second other task"]) {
      await call(hub.app, "POST", "/v1/projects/demo/context", key, { role: "planner", task });
    }
    const { cookie } = await session();
    const api = (await call(hub.app, "GET", "/v1/projects/demo/packets?limit=20", ADMIN_TOKEN)).json();
    expect(api.packets).toHaveLength(3);
    const body = (await get("/inspector/projects/demo/packets", cookie)).body;
    const ids = [...body.matchAll(/<code>(pkt_[0-9a-f]{32})<\/code>/g)].map((match) => match[1]);
    expect(ids).toEqual(api.packets.map((packet: { packetId: string }) => packet.packetId));
    expect(body).not.toContain("Packets served earlier");
  });

  test("the replay form shows the same packet id, or the error's code and message", async () => {
    const { packetId } = await records();
    const { cookie, csrf } = await session();
    const url = `/inspector/projects/demo/packets/${packetId}/replay`;
    const same = await post(url, cookie, { csrf, task: TASK });
    expect(same.statusCode).toBe(200);
    expect(same.body).toContain(`The replay gave the same packet, <code>${packetId}</code>.`);
    expect(same.body).toContain("<h1>Packet");
    const wrong = await post(url, cookie, { csrf, task: "Another task" }, { "hx-request": "true" });
    expect(wrong.statusCode).toBe(200);
    expect(wrong.body.trim()).toBe(
      `<p class="bad">The replay failed: <code>replay_task_mismatch</code>: the task given is not the one packet ${packetId} was assembled for</p>`,
    );
    const long = await post(url, cookie, { csrf, task: "x".repeat(LIMITS.taskChars + 1) });
    expect(long.body).toContain("The replay failed: <code>context_limits_exceeded</code>");
    const forged = await post(url, cookie, { task: TASK });
    expect(forged.statusCode).toBe(400);
  });

  test("an item page shows its provenance, lineage and evidence, each known id linking on", async () => {
    const { derived, state } = await records();
    const { cookie } = await session();
    const body = (await get(`/inspector/projects/demo/items/${derived.id}`, cookie)).body;
    expect(body).toContain("<dt>Summary</dt><dd>Tags wait for the release branch</dd>");
    expect(body).toContain("<dt>Lineage depth</dt><dd>1</dd>");
    expect(body).toContain(
      `<td><a href="/inspector/projects/demo/items/${state.id}"><code>${state.id}</code></a></td>\n<td>yes</td>\n<td>peer: <code>promoted-by:kxm-admin</code></td>`,
    );
    const stateBody = (await get(`/inspector/projects/demo/items/${state.id}`, cookie)).body;
    expect(stateBody).toContain("<dt>Provenance</dt><dd>peer: <code>promoted-by:kxm-admin</code></dd>");
    expect(stateBody).toContain("<li><code>pr:12</code></li>");
    expect(stateBody).toContain("<li><code>review:pr-12</code></li>");
    const revoked = (await get("/inspector/projects/demo/items/derived_unrelated", cookie)).body;
    expect(revoked).toContain("Withheld from every packet and recall: revoked.");
    const unknown = await get("/inspector/projects/demo/items/no_such_item", cookie);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain("holds no item with this id");
  });

  test("the state page shows each key and the open contradictions side by side", async () => {
    const { competing } = await records();
    const { cookie } = await session();
    const body = (await get("/inspector/projects/demo/state", cookie)).body;
    expect(body).toContain(
      '<h3><a href="/inspector/projects/demo/state/release.freeze">release.freeze</a>: 2 competing values</h3>',
    );
    const cards = [
      ...body.matchAll(
        /<section class="card" aria-label="([^"]+)">\n<p><a [^>]+><code>[^<]+<\/code><\/a><\/p>\n<p>([^<]+)<\/p>/g,
      ),
    ];
    const summaries = new Map([
      [competing[0], "Releases freeze on Fridays"],
      [competing[1], "Releases never freeze"],
    ]);
    expect(cards.map((card) => [card[1], card[2]])).toEqual(
      [...competing].sort().map((id) => [id, summaries.get(id)]),
    );
    expect(body).toContain(
      `<td><a href="/inspector/projects/demo/state/release.branch">release.branch</a></td>\n<td>Releases are cut from the main branch ${HOSTILE_ESCAPED}</td>\n<td class="num">0</td>\n<td class="num">2</td>`,
    );
    expect(body).toContain(
      '<td><a href="/inspector/projects/demo/state/release.freeze">release.freeze</a></td>\n<td>none</td>\n<td class="num">2</td>\n<td class="num">2</td>',
    );
  });

  test("a state key's page shows its history in order and its value at any time", async () => {
    const { proposalId, state } = await records();
    const { cookie } = await session();
    const url = "/inspector/projects/demo/state/release.branch";
    const body = (await get(url, cookie)).body;
    const history = [...body.matchAll(/<li class="status-([a-z]+)">/g)].map((match) => match[1]);
    expect(history).toEqual(["rejected", "current"]);
    expect(body.indexOf(proposalId)).toBeLessThan(body.indexOf(state.id));
    const before = (await get(`${url}?asOf=2026-10-01T08:00:00Z`, cookie)).body;
    expect(before).toContain(
      '<p class="bad">At 2026-10-01T08:00:00Z: <code>not_found</code>: the state key has no current value at that time</p>',
    );
    const after = (await get(`${url}?asOf=2026-10-02T00:00:00Z`, cookie)).body;
    expect(after).toContain(
      `<p class="ok">At 2026-10-02T00:00:00Z: <a href="/inspector/projects/demo/items/${state.id}"><code>${state.id}</code></a>, Releases are cut from the main branch ${HOSTILE_ESCAPED}</p>`,
    );
    expect((await get(`${url}?asOf=yesterday`, cookie)).body).toContain(
      "At yesterday: <code>invalid_request</code>",
    );
    const freeze = await get(
      "/inspector/projects/demo/state/release.freeze?asOf=2026-10-02T00:00:00Z",
      cookie,
    );
    expect(freeze.body).toContain("<code>not_found</code>");
  });

  test("the runs pages show each finished run's episode, journal and the packets its steps were given", async () => {
    const { key } = await records();
    await call(hub.app, "POST", "/v1/projects/demo/runs", key, { workflow: "release", runId: "run-7" });
    const entry = await call(hub.app, "POST", "/v1/projects/demo/runs/run-7/journal", key, {
      category: "decision",
      stage: "plan",
      summary: `Cut from main ${HOSTILE}`,
    });
    expect(entry.statusCode, entry.body).toBe(201);
    const step = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
      role: "planner",
      task: TASK,
      runId: "run-7",
      stage: "plan",
    });
    const stepPacket = step.json().audit.packetId as string;
    const finished = await call(hub.app, "POST", "/v1/projects/demo/runs/run-7/finish", key, {
      outcome: "succeeded",
    });
    expect(finished.statusCode, finished.body).toBe(200);
    const { cookie } = await session();
    const runs = (await get("/inspector/projects/demo/runs", cookie)).body;
    expect(runs).toContain('<td><a href="/inspector/projects/demo/runs/run-7"><code>run-7</code></a></td>');
    const run = await get("/inspector/projects/demo/runs/run-7", cookie);
    expect(run.statusCode).toBe(200);
    expect(run.body).toContain(
      `<p><a href="/inspector/projects/demo/items/episode_run-7"><code>episode_run-7</code></a>:`,
    );
    expect(run.body).toContain(
      `<td>plan</td>\n<td>planner</td>\n<td><a href="/inspector/projects/demo/packets/${stepPacket}"><code>${stepPacket}</code></a></td>`,
    );
    expect(run.body).toContain(`<td>plan</td>\n<td>decision</td>`);
    expect(run.body).toContain(`Cut from main ${HOSTILE_ESCAPED}`);
    expect(run.body).not.toContain("<script>alert");
    expect((await get("/inspector/projects/demo/runs/run-unknown", cookie)).statusCode).toBe(404);
    expect((await get("/inspector/projects/empty/runs", cookie)).body).toContain(
      "No run of this project has finished",
    );
  });

  test("a step report's manifest is kept with its journal entry and each id shows on the run page, escaped", async () => {
    const { key, state } = await records();
    await call(hub.app, "POST", "/v1/projects/demo/runs", key, { workflow: "release", runId: "run-8" });
    // An id may hold markup (an id has no white space, nothing more), and a caller may put a token in a gap.
    const hostileId = "<script>alert(1)</script>";
    const secret = secretCases(20261203).find((c) => c.kind === "github-classic-token")!.secret;
    const manifest: StepManifest = {
      attempt: 2,
      agent: "planner",
      role: "planner",
      memoryRevision: `ctxrev_${"a".repeat(64)}`,
      items: [
        { id: state.id, section: "Current State", characters: 80, score: 1.5 },
        { id: "mem_not-here", section: "Project Knowledge", characters: 40, score: 0.25 },
        { id: hostileId, section: "Active Skills", characters: 30, score: 0 },
      ],
      gaps: ["dispatch_context_items_withheld:revoked:1", `dispatch_context_memory_rejected:${secret}`],
      packetTokens: 120,
      promptTokens: 160,
    };
    const report = (sent: unknown) =>
      call(hub.app, "POST", "/v1/projects/demo/runs/run-8/journal", key, {
        category: "observation",
        stage: "plan",
        summary: "Step plan (planner) attempt 2 completed with outcome done in 0.1 s",
        manifest: sent,
      });
    const refused: Array<[string, unknown, string]> = [
      [
        "an unknown section",
        { ...manifest, items: [{ ...manifest.items[0], section: "Elsewhere" }] },
        "invalid_request",
      ],
      ["a field of text", { ...manifest, prompt: "the whole prompt" }, "invalid_request"],
      [
        "an id with a space",
        { ...manifest, items: [{ ...manifest.items[0], id: "mem one" }] },
        "invalid_request",
      ],
      ["attempt 0", { ...manifest, attempt: 0 }, "context_limits_exceeded"],
      [
        "too many items",
        {
          ...manifest,
          items: Array.from({ length: LIMITS.maxPacketItems + 1 }, (_, index) => ({
            id: `mem_${index}`,
            section: "Project Knowledge",
            characters: 1,
            score: 0,
          })),
        },
        "context_limits_exceeded",
      ],
      [
        "too many gaps",
        {
          ...manifest,
          gaps: Array.from({ length: LIMITS.maxManifestGaps + 1 }, (_, index) => `gap_${index}`),
        },
        "context_limits_exceeded",
      ],
      ["a gap too long", { ...manifest, gaps: ["g".repeat(LIMITS.refChars + 1)] }, "context_limits_exceeded"],
    ];
    for (const [what, sent, code] of refused) {
      const response = await report(sent);
      expect([what, response.statusCode, response.headers["content-type"], response.json().code]).toEqual([
        what,
        400,
        "application/problem+json; charset=utf-8",
        code,
      ]);
    }
    const stored = await report(manifest);
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json().entry.manifest).toEqual({
      ...manifest,
      gaps: ["dispatch_context_items_withheld:revoked:1", "dispatch_context_memory_rejected:[redacted]"],
    });
    const entryId: string = stored.json().entry.id;

    const { cookie } = await session();
    const run = await get("/inspector/projects/demo/runs/run-8", cookie);
    expect(run.statusCode).toBe(200);
    expect(run.body).toContain("<h3>Step plan, attempt 2</h3>");
    expect(run.body).toContain(
      `<dt>Memory revision</dt><dd><code>ctxrev_${"a".repeat(64)}</code></dd>\n<dt>Tokens</dt><dd>120 in the packet, 160 in the prompt</dd>`,
    );
    expect(run.body).toContain(
      "<dt>Gaps</dt><dd><code>dispatch_context_items_withheld:revoked:1</code>, <code>dispatch_context_memory_rejected:[redacted]</code></dd>",
    );
    expect(run.body).toContain(
      `<dt>Report</dt><dd><a href="/inspector/projects/demo/items/journal_${entryId}"><code>journal_${entryId}</code></a></dd>`,
    );
    // The ids the pool holds link to their pages; the others are shown as they were reported.
    expect(run.body).toContain(
      `<td>Current State</td>\n<td><a href="/inspector/projects/demo/items/${state.id}"><code>${state.id}</code></a></td>\n<td class="num">80</td>\n<td class="num">1.5</td>`,
    );
    expect(run.body).toContain(
      '<td>Project Knowledge</td>\n<td><code>mem_not-here</code></td>\n<td class="num">40</td>\n<td class="num">0.25</td>',
    );
    expect(run.body).toContain(
      "<td>Active Skills</td>\n<td><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></td>",
    );
    expect(run.body).not.toContain("<script>alert");
    expect(leaked(secret, run.body + hub.rawLogs.join("\n"))).toBe(false);
  });

  test("an unknown project, packet or page is a 404 page, never a 500", async () => {
    const { packetId } = await records();
    const { cookie } = await session();
    const missing = [
      "/inspector/projects/nope/packets",
      `/inspector/projects/nope/packets/${packetId}`,
      `/inspector/projects/empty/packets/${packetId}`,
      "/inspector/projects/demo/packets/pkt_00000000000000000000000000000000",
      "/inspector/projects/demo/packets/not-a-packet-id",
      "/inspector/projects/nope/items/anything",
      "/inspector/projects/nope/state",
      "/inspector/projects/nope/runs",
      "/inspector/projects/demo/runs/bad id",
      "/inspector/projects/nope/state/release.branch",
      "/inspector/projects/demo/packets?cursor=",
      "/inspector/nothing/here",
    ];
    for (const url of missing) {
      const response = await get(url, cookie);
      expect([url, response.statusCode]).toEqual([url, 404]);
      expect(response.body, url).toContain("<code>not_found</code>");
    }
  });
});
