import { type ErrorCode, ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { urlOf } from "./fixtures.js";
import { ADMIN_TOKEN, call, createTestHub, projectWithAgent, type TestHub } from "./helpers.js";

const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];
/** Codes any request may meet, whatever its route lists: an unknown URL or method, a body over the limit, the rate limit. */
const GLOBAL_CODES: readonly ErrorCode[] = [
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "rate_limited",
];

function expectProblem(response: LightMyRequestResponse, status: number, code: ErrorCode): void {
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
}

describe("bad input", () => {
  let hub: TestHub;
  let key: string;
  beforeAll(async () => {
    hub = await createTestHub();
    key = await projectWithAgent(hub.app, "demo");
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("malformed JSON is 400 invalid_request", async () => {
    const response = await hub.app.inject({
      method: "POST",
      url: "/v1/projects/demo/context",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      payload: '{"role": "planner", "task": ',
    });
    expectProblem(response, 400, "invalid_request");
  });

  test("an empty JSON body, a non-JSON body and a prototype-poisoning body are 400 invalid_request", async () => {
    const bodies = [
      { "content-type": "application/json", payload: "" },
      { "content-type": "text/plain", payload: "role=planner" },
      { "content-type": "application/json", payload: '{"role":"planner","task":"t","__proto__":{"x":1}}' },
      {
        "content-type": "application/json",
        payload: '{"role":"planner","task":"t","constructor":{"prototype":{}}}',
      },
    ];
    for (const { payload, ...headers } of bodies) {
      const response = await hub.app.inject({
        method: "POST",
        url: "/v1/projects/demo/context",
        headers: { authorization: `Bearer ${key}`, ...headers },
        payload,
      });
      expectProblem(response, 400, "invalid_request");
    }
  });

  test("a body over 256 KiB is 413 payload_too_large", async () => {
    const response = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
      role: "planner",
      task: "x".repeat(300 * 1024),
    });
    expectProblem(response, 413, "payload_too_large");
  });

  test("a body just under 256 KiB is read (and refused for its task length, not its size)", async () => {
    const response = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
      role: "planner",
      task: "x".repeat(250 * 1024),
    });
    expectProblem(response, 400, "context_limits_exceeded");
  });

  test("an unknown route is 404 not_found; a known one asked with another method is 405 with Allow", async () => {
    expectProblem(await call(hub.app, "GET", "/v1/nothing-here", key), 404, "not_found");
    expectProblem(await call(hub.app, "GET", "/v2/health"), 404, "not_found");
    expectProblem(await call(hub.app, "GET", "/v1/projects/demo/context/extra", key), 404, "not_found");
    const put = await call(hub.app, "PUT", "/v1/projects", ADMIN_TOKEN, {});
    expectProblem(put, 405, "method_not_allowed");
    expect(put.headers.allow).toBe("GET, POST");
    expect(put.json().detail).toBe("PUT is not served here; this route takes GET, POST");
    const context = await hub.app.inject({ method: "OPTIONS", url: "/v1/projects/demo/context?x=1" });
    expectProblem(context, 405, "method_not_allowed");
    expect(context.headers.allow).toBe("POST");
    const head = await hub.app.inject({ method: "HEAD", url: "/v1/projects/demo/recall" });
    expectProblem(head, 405, "method_not_allowed");
    // The hub serves no HEAD routes (exposeHeadRoutes is off): HEAD on a GET route is 405 too.
    const health = await hub.app.inject({ method: "HEAD", url: "/v1/health" });
    expect({ status: health.statusCode, allow: health.headers.allow }).toEqual({ status: 405, allow: "GET" });
  });

  test("a repeated or unknown query parameter is 400 invalid_request", async () => {
    const twice = await call(
      hub.app,
      "GET",
      "/v1/projects/demo/state/k?asOf=2026-01-01T00:00:00Z&asOf=x",
      key,
    );
    expectProblem(twice, 400, "invalid_request");
    const unknown = await call(hub.app, "GET", "/v1/projects/demo/episodes?color=red", key);
    expectProblem(unknown, 400, "invalid_request");
  });

  test("a malformed percent-encoding in the path is 400 invalid_request, without echoing the URL", async () => {
    const response = await call(hub.app, "GET", "/v1/projects/demo/state/%E0%A4%A/history", key);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.body).not.toContain("%E0");
  });

  test("a validation error names the field and rule, never the value or an unknown key's name", async () => {
    const response = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
      role: "planner",
      task: "t",
      secretFieldName: "secret-value",
    });
    expectProblem(response, 400, "invalid_request");
    expect(response.body).not.toContain("secretFieldName");
    expect(response.body).not.toContain("secret-value");
  });

  test("fuzzed bodies, paths and queries never get a 500, and every code is one the route lists", async () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom("", " ", "..", "%", "ü", "a".repeat(300)),
    );
    const value = fc.oneof(fc.jsonValue(), text, fc.integer(), fc.constantFrom(null, true, [], {}));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTE_NAMES),
        fc.constantFrom(key, ADMIN_TOKEN),
        fc.dictionary(fc.constantFrom("project", "proposalId", "key", "itemId", "runId", "agentId"), text),
        fc.dictionary(fc.constantFrom("asOf", "limit", "cursor", "runId", "x"), text),
        fc.oneof(
          fc.dictionary(
            fc.constantFrom(
              "role",
              "task",
              "query",
              "key",
              "summary",
              "authority",
              "confidence",
              "evidenceRefs",
              "budgetTokens",
              "includeKinds",
              "category",
              "workflow",
              "outcome",
              "id",
              "agentId",
              "limit",
              "stage",
              "runId",
              "proposedBy",
            ),
            value,
          ),
          value,
        ),
        async (name, token, params, query, body) => {
          const route: RouteDefinition = ROUTES[name];
          const sample = { params: { project: "demo", ...params }, query, body };
          let url: string;
          try {
            url = urlOf(name, sample);
          } catch {
            return; // a lone surrogate cannot be percent-encoded: no client can send it
          }
          const response = await call(
            hub.app,
            route.method,
            url,
            token,
            route.method === "GET" ? undefined : body,
          );
          expect(response.statusCode).toBeLessThan(500);
          if (response.statusCode >= 400) {
            expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
            const { code } = response.json();
            // A body the hub cannot read (not JSON) is invalid_request on any route, even one that takes none.
            const unreadable: ErrorCode[] = route.method !== "GET" ? ["invalid_request"] : [];
            expect([...route.errors, ...GLOBAL_CODES, ...unreadable]).toContain(code);
          }
        },
      ),
      { numRuns: 400, seed: 20261001 },
    );
  });
});

describe("the rate limit", () => {
  let hub: TestHub;
  let key: string;
  beforeAll(async () => {
    hub = await createTestHub({ rateLimit: { max: 3, timeWindowMs: 60_000 } });
    await hub.store.createProject({ id: "demo" }, hub.clock.now());
    key = (await hub.store.createAgentKey("demo", "agent-a", hub.clock.now())).key;
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test("counts per credential: the fourth request in a minute is 429 rate_limited, another credential is not", async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await call(hub.app, "POST", "/v1/projects/demo/recall", key, { query: "x" })).statusCode).toBe(
        200,
      );
    }
    const limited = await call(hub.app, "POST", "/v1/projects/demo/recall", key, { query: "x" });
    expectProblem(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toBeDefined();
    const other = await call(hub.app, "GET", "/v1/projects", ADMIN_TOKEN);
    expect(other.statusCode).toBe(200);
  });

  test("requests without a credential are counted per address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await call(hub.app, "GET", "/v1/health")).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
