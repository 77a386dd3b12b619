// The Steel client's error mapping, against real loopback HTTP servers started here. They stand in for Steel's
// error answers (a refused key, a 500, a body that is not JSON, a server that never answers); the contract
// tests against the Steel-compatible test server cover the normal answers. No message may hold the key.
import type { KxmError } from "@kxm/contract";
import { expectKxmRejection, freePort } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import { STEEL_KEY_HEADER } from "../src/client.js";
import { SteelClient, type SteelSession } from "../src/index.js";
import { answer, startServer } from "./support/http.js";

const KEY = "sk-test-Zq8x!k3y";
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

function client(url: string, requestTimeoutMs = 5_000): SteelClient {
  return new SteelClient({ apiUrl: url, key: KEY, requestTimeoutMs });
}

function noKey(error: KxmError): void {
  expect(error.message).not.toContain(KEY);
  expect(error.message).not.toContain(encodeURIComponent(KEY));
  expect(error.message).not.toMatch(/apiKey/);
}

const calls = {
  create: (c: SteelClient) => c.create({ timeoutMs: 60_000 }),
  get: (c: SteelClient) => c.get("s1"),
  list: (c: SteelClient) => c.list(),
  release: (c: SteelClient) => c.release("s1"),
  scrape: (c: SteelClient) => c.scrape({ url: "https://example.com" }),
  screenshot: (c: SteelClient) => c.screenshot({ url: "https://example.com" }),
};
const CALLS = Object.entries(calls);

describe("SteelClient requests", () => {
  test("sends the key in the steel-api-key header only, never x-steel-api-key or the URL", async () => {
    const server = await startServer((_request, response) => answer(response, 200, { sessions: [] }));
    await client(server.url).list();
    const [request] = server.requests;
    expect(STEEL_KEY_HEADER).toBe("steel-api-key");
    expect(request?.headers["steel-api-key"]).toBe(KEY);
    expect(request?.headers["x-steel-api-key"]).toBeUndefined();
    expect(request?.path).toBe("/v1/sessions");
  });

  test("the endpoints and bodies of the guide's table, under the URL's path prefix", async () => {
    const server = await startServer((request, response) => {
      if (request.path.endsWith("/v1/screenshot")) return answer(response, 200, PNG, "image/png");
      if (request.path.endsWith("/release")) return answer(response, 200, { id: "s1", status: "released" });
      if (request.path.endsWith("/v1/scrape"))
        return answer(response, 200, { content: { html: "<p>x</p>" } });
      if (request.path.endsWith("/v1/sessions") && request.method === "GET") return answer(response, 200, []);
      return answer(response, 200, {
        id: "s1",
        status: "live",
        createdAt: "2026-12-02T10:00:00Z",
        timeout: 60000,
      });
    });
    const steel = client(`${server.url}/steel/`);
    const expected: SteelSession = {
      id: "s1",
      status: "live",
      createdAt: "2026-12-02T10:00:00Z",
      timeoutMs: 60_000,
    };
    await expect(steel.create({ timeoutMs: 60_000 })).resolves.toEqual(expected);
    await steel.get("s1");
    await expect(steel.list()).resolves.toEqual([]);
    await steel.release("s1");
    await expect(steel.scrape({ url: "https://example.com", format: "markdown" })).resolves.toEqual({
      content: { html: "<p>x</p>" },
    });
    expect(Buffer.from(await steel.screenshot({ url: "https://example.com", fullPage: true }))).toEqual(PNG);
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([
      'POST /steel/v1/sessions {"timeout":60000}',
      "GET /steel/v1/sessions/s1 ",
      "GET /steel/v1/sessions ",
      "POST /steel/v1/sessions/s1/release {}",
      'POST /steel/v1/scrape {"url":"https://example.com","format":["markdown"]}',
      'POST /steel/v1/screenshot {"url":"https://example.com","fullPage":true}',
    ]);
  });

  test("a list is {sessions: [...]} or a bare array; unknown fields pass", async () => {
    const server = await startServer((request, response) =>
      request.path === "/v1/sessions"
        ? answer(response, 200, {
            sessions: [
              { id: "a", extra: { x: 1 } },
              { id: "b", status: "released" },
            ],
          })
        : answer(response, 200, [{ id: "c", createdAt: null }]),
    );
    await expect(client(server.url).list()).resolves.toEqual([{ id: "a" }, { id: "b", status: "released" }]);
    const bare = await startServer((_request, response) =>
      answer(response, 200, [{ id: "c", createdAt: null }]),
    );
    await expect(client(bare.url).list()).resolves.toEqual([{ id: "c" }]);
  });

  test("a session id cannot reach another path", async () => {
    const server = await startServer((_request, response) => answer(response, 200, { id: "../x" }));
    await client(server.url).get("../x");
    expect(server.requests[0]?.path).toBe("/v1/sessions/..%2Fx");
  });
});

describe("SteelClient errors", () => {
  test.each(CALLS)(
    "%s: an unreachable port is browser_unreachable naming the origin",
    async (_name, call) => {
      const port = await freePort();
      const error = await expectKxmRejection(
        call(client(`http://127.0.0.1:${port}`)),
        "browser_unreachable",
        503,
      );
      expect(error.message).toMatch(
        new RegExp(
          `^Steel at http://127\\.0\\.0\\.1:${port} could not be reached \\((GET|POST) /v1/[a-z/0-9]+\\): connection refused \\(ECONNREFUSED\\)$`,
        ),
      );
      noKey(error);
    },
  );

  test("a server that never answers: browser_unreachable after the request timeout", async () => {
    const server = await startServer(() => undefined);
    const started = Date.now();
    const error = await expectKxmRejection(client(server.url, 300).list(), "browser_unreachable");
    expect(error.message).toBe(
      `Steel at ${server.url} could not be reached (GET /v1/sessions): no answer within 300 ms`,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  test.each(CALLS.flatMap(([name, call]) => [401, 403].map((status) => [name, status, call] as const)))(
    "%s: %i is browser_auth_failed",
    async (_name, status, call) => {
      const server = await startServer((_request, response) =>
        answer(response, status, { message: `bad key ${KEY}` }),
      );
      const error = await expectKxmRejection(call(client(server.url)), "browser_auth_failed", 401);
      expect(error.message).toContain(`Steel at ${server.url} refused the API key (${status} on `);
      noKey(error);
    },
  );

  test.each(CALLS.filter(([name]) => name !== "screenshot" && name !== "release"))(
    "%s: a body that is not JSON is browser_answer_invalid",
    async (_name, call) => {
      const server = await startServer((_request, response) =>
        answer(response, 200, `<html>${KEY}</html>`, "text/html"),
      );
      const error = await expectKxmRejection(call(client(server.url)), "browser_answer_invalid", 502);
      expect(error.message).toContain("a body that is not JSON");
      noKey(error);
    },
  );

  test("off-schema JSON is browser_answer_invalid naming where, not the value", async () => {
    const server = await startServer((_request, response) =>
      answer(response, 200, { sessions: [{ id: 42, key: KEY }] }),
    );
    const error = await expectKxmRejection(client(server.url).list(), "browser_answer_invalid");
    expect(error.message).toMatch(
      /^Steel at http:\/\/127\.0\.0\.1:\d+ answered GET \/v1\/sessions: not a Steel session list \(/,
    );
    noKey(error);
    const noId = await startServer((_request, response) => answer(response, 200, { status: "live" }));
    await expectKxmRejection(client(noId.url).create(), "browser_answer_invalid");
    const otherId = await startServer((_request, response) => answer(response, 200, { id: "s2" }));
    await expectKxmRejection(client(otherId.url).get("s1"), "browser_answer_invalid");
  });

  test("a screenshot that is not a PNG is browser_answer_invalid", async () => {
    const server = await startServer((_request, response) => answer(response, 200, { error: "no" }));
    const error = await expectKxmRejection(
      client(server.url).screenshot({ url: "https://x" }),
      "browser_answer_invalid",
    );
    expect(error.message).toContain("not a PNG image");
  });

  test.each(CALLS.flatMap(([name, call]) => [500, 429, 502].map((status) => [name, status, call] as const)))(
    "%s: %i is browser_request_failed naming method, path and status",
    async (_name, status, call) => {
      const server = await startServer((_request, response) => answer(response, status, { error: KEY }));
      const error = await expectKxmRejection(call(client(server.url)), "browser_request_failed", 502);
      expect(error.message).toMatch(
        new RegExp(
          `^Steel at http://127\\.0\\.0\\.1:\\d+ answered (GET|POST) /v1/[a-z/0-9]+ with ${status}$`,
        ),
      );
      noKey(error);
    },
  );

  test.each([
    ["get", calls.get],
    ["release", calls.release],
  ] as const)("%s: 404 is browser_session_not_found", async (_name, call) => {
    const server = await startServer((_request, response) =>
      answer(response, 404, { message: "Session not found" }),
    );
    const error = await expectKxmRejection(call(client(server.url)), "browser_session_not_found", 404);
    expect(error.message).toBe(`Steel at ${server.url} has no session s1`);
  });

  test("404 on the list is browser_request_failed, not a missing session", async () => {
    const server = await startServer((_request, response) => answer(response, 404, {}));
    const error = await expectKxmRejection(client(server.url).list(), "browser_request_failed");
    expect(error.message).toBe(`Steel at ${server.url} answered GET /v1/sessions with 404`);
  });

  test("a redirect is not followed (the key would go to another host)", async () => {
    const target = await startServer((_request, response) => answer(response, 200, []));
    const server = await startServer((_request, response) => {
      response.writeHead(302, { location: `${target.url}/v1/sessions` }).end();
    });
    await expectKxmRejection(client(server.url).list(), "browser_unreachable");
    expect(target.requests).toHaveLength(0);
  });
});
