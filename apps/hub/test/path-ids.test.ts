import { ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import { SAMPLES, type Sample, send } from "./fixtures.js";
import { ADMIN_TOKEN, createTestHub, projectWithAgent, type TestHub } from "./helpers.js";

// One rule for every id in a path, generated from the route table: a malformed id is 400 `invalid_request`, on
// every route and whatever rule it breaks; a well-formed id that names no record is 404. A route added to the
// table with a path parameter is covered here without a new line.

/** Values some path parameter's schema refuses: white space, only white space, over any id's length. */
const MALFORMED_CANDIDATES = ["bad id", "   ", "x".repeat(1_000), "tab\tid"];

/** Well-formed ids that name no record. */
const MISSING: Record<string, string> = { project: "ghost", packetId: `pkt_${"0".repeat(32)}` };
const MISSING_DEFAULT = "missing-record-1";

/**
 * Routes that answer a well-formed unknown id with something other than 404, and why (each is the documented
 * behaviour in docs/reference/http-api.md): explain says whether the item exists, a key never proposed has an
 * empty history, and revoking a key or an operator that is not there answers `revoked: false`.
 */
const NOT_404: Partial<Record<RouteName, Partial<Record<string, { status: number; why: string }>>>> = {
  explain: { itemId: { status: 200, why: "explain answers `exists: false` for an unknown item" } },
  stateHistory: { key: { status: 200, why: "a key never proposed has an empty history" } },
  revokeAgentKey: {
    agentId: { status: 200, why: "revoking an agent id with no key answers `revoked: false`" },
  },
  revokeOperator: {
    name: { status: 200, why: "revoking an operator name with no token answers `revoked: false`" },
  },
};

const CASES = (Object.keys(ROUTES) as RouteName[]).flatMap((name) => {
  const params = (ROUTES[name] as RouteDefinition).params;
  if (params === undefined) return [];
  return (Object.entries(params.shape) as [string, z.ZodType][]).map(([param, schema]) => ({
    name,
    param,
    malformed: MALFORMED_CANDIDATES.filter((value) => !schema.safeParse(value).success),
    missing: MISSING[param] ?? MISSING_DEFAULT,
    wellFormed: schema.safeParse(MISSING[param] ?? MISSING_DEFAULT).success,
  }));
});

let hub: TestHub;
let key: string;
beforeAll(async () => {
  hub = await createTestHub();
  key = await projectWithAgent(hub.app, "demo");
});
afterAll(async () => {
  await hub.dispose();
});

async function sampleWith(name: RouteName, param: string, value: string): Promise<Sample> {
  const sample = await SAMPLES[name]({ app: hub.app, project: "demo", key });
  return { ...sample, params: { ...sample.params, [param]: value } };
}

describe("path ids: one rule on every route with a path parameter", () => {
  test("the table has routes with each kind of id, and every parameter has malformed values", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    for (const entry of CASES)
      expect(entry.malformed.length, `${entry.name} ${entry.param}`).toBeGreaterThan(0);
    for (const entry of CASES) expect(entry.wellFormed, `${entry.name} ${entry.param}`).toBe(true);
  });

  test.each(CASES)("$name: a malformed $param is 400 invalid_request", async ({ name, param, malformed }) => {
    for (const value of malformed) {
      const response = await send(hub.app, name, await sampleWith(name, param, value), ADMIN_TOKEN);
      expect([response.statusCode, response.json().code], `${JSON.stringify(value)}`).toEqual([
        400,
        "invalid_request",
      ]);
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(response.json().detail).toMatch(/^path parameter /);
    }
  });

  test.each(CASES)(
    "$name: a well-formed $param that names no record is 404 (or the documented answer)",
    async ({ name, param, missing }) => {
      const response = await send(hub.app, name, await sampleWith(name, param, missing), ADMIN_TOKEN);
      const expected = NOT_404[name]?.[param]?.status ?? 404;
      expect(response.statusCode, response.body).toBe(expected);
      if (expected === 404) expect(response.json().code).toMatch(/not_found$/);
    },
  );
});
