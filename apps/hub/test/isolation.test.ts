import { type ErrorCode, ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SAMPLES, send } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  agentKey,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  projectWithAgent,
  type TestHub,
} from "./helpers.js";

const CALLERS = ["own", "other", "admin", "none", "garbage", "revoked"] as const;
type CallerName = (typeof CALLERS)[number];
type Expected = { status: number; code?: ErrorCode };

const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];
const GARBAGE = "not-a-credential-at-all";

/** What a hub with an admin token answers each caller, from the route's `auth` alone. */
function expectedWithAdmin(route: RouteDefinition, caller: CallerName): Expected {
  if (route.auth === "none") return { status: route.status };
  if (route.auth === "admin" || route.auth === "operator")
    return caller === "admin" ? { status: route.status } : { status: 401, code: "invalid_auth" };
  if (caller === "admin" || caller === "own") return { status: route.status };
  if (caller === "other") return { status: 403, code: "context_isolation_violation" };
  return { status: 401, code: "invalid_auth" };
}

/** Without an admin token: admin routes are 503 for everyone; the admin token is just an unknown credential. */
function expectedWithoutAdmin(route: RouteDefinition, caller: CallerName): Expected {
  if (route.auth === "none") return { status: route.status };
  if (route.auth === "admin" || route.auth === "operator") {
    return { status: 503, code: "admin_auth_not_configured" };
  }
  if (caller === "own") return { status: route.status };
  if (caller === "other") return { status: 403, code: "context_isolation_violation" };
  const operatorLike = caller === "admin" || caller === "garbage";
  if (operatorLike && (route.errors as readonly ErrorCode[]).includes("admin_auth_not_configured")) {
    return { status: 503, code: "admin_auth_not_configured" };
  }
  return { status: 401, code: "invalid_auth" };
}

describe("the isolation matrix, hub with an admin token", () => {
  let hub: TestHub;
  const tokens = {} as Record<CallerName, string | undefined>;
  beforeAll(async () => {
    hub = await createTestHub();
    tokens.own = await projectWithAgent(hub.app, "alpha");
    tokens.other = await projectWithAgent(hub.app, "beta");
    tokens.admin = ADMIN_TOKEN;
    tokens.none = undefined;
    tokens.garbage = GARBAGE;
    tokens.revoked = await agentKey(hub.app, "alpha", "agent-revoked");
    const revoked = await call(hub.app, "DELETE", "/v1/projects/alpha/agents/agent-revoked", ADMIN_TOKEN);
    expect(revoked.json()).toEqual({ revoked: true });
    // A current value, so that reading it succeeds.
    const proposal = await call(
      hub.app,
      "POST",
      "/v1/projects/alpha/state/proposals",
      tokens.own,
      GUIDE_PROPOSAL,
    );
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/state/proposals/${proposal.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:pr-12"] },
    );
    expect(promoted.statusCode).toBe(200);
    hub.clock.advance(1_000);
  });
  afterAll(async () => {
    await hub.dispose();
  });

  const cases = ROUTE_NAMES.flatMap((name) => CALLERS.map((caller) => [name, caller] as const));
  test.each(cases)("%s with the %s credential", async (name, caller) => {
    const route: RouteDefinition = ROUTES[name];
    const sample = await SAMPLES[name]({ app: hub.app, project: "alpha", key: tokens.own! });
    const response = await send(hub.app, name, sample, tokens[caller]);
    const expected = expectedWithAdmin(route, caller);
    expect({ status: response.statusCode, code: expected.code && response.json().code }).toEqual({
      status: expected.status,
      code: expected.code,
    });
    if (expected.code !== undefined) {
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(route.errors).toContain(expected.code);
    }
  });

  test("an agent key in a non-Bearer header is refused, not ignored", async () => {
    const response = await hub.app.inject({
      method: "POST",
      url: "/v1/projects/alpha/recall",
      headers: { authorization: `Basic ${tokens.own}` },
      payload: { query: "x" },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("invalid_auth");
  });

  test("the admin token is refused with a prefix, a suffix or different case", async () => {
    for (const token of [ADMIN_TOKEN.slice(0, -1), `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase()]) {
      const response = await call(hub.app, "GET", "/v1/projects", token);
      expect(response.statusCode).toBe(401);
    }
  });

  test("an unknown project answers the admin 404 and another project's agent 403", async () => {
    const admin = await call(hub.app, "POST", "/v1/projects/ghost/context", ADMIN_TOKEN, {
      role: "r",
      task: "t",
    });
    expect([admin.statusCode, admin.json().code]).toEqual([404, "not_found"]);
    const agent = await call(hub.app, "POST", "/v1/projects/ghost/context", tokens.own, {
      role: "r",
      task: "t",
    });
    expect([agent.statusCode, agent.json().code]).toEqual([403, "context_isolation_violation"]);
  });
});

describe("the isolation matrix, hub without an admin token", () => {
  let hub: TestHub;
  const tokens = {} as Record<CallerName, string | undefined>;
  beforeAll(async () => {
    hub = await createTestHub({ noAdmin: true });
    const now = hub.clock.now();
    await hub.store.createProject({ id: "alpha" }, now);
    await hub.store.createProject({ id: "beta" }, now);
    tokens.own = (await hub.store.createAgentKey("alpha", "agent-planner", now)).key;
    tokens.other = (await hub.store.createAgentKey("beta", "agent-planner", now)).key;
    tokens.revoked = (await hub.store.createAgentKey("alpha", "agent-revoked", now)).key;
    await hub.store.revokeAgentKey("alpha", "agent-revoked", now);
    tokens.admin = ADMIN_TOKEN;
    tokens.none = undefined;
    tokens.garbage = GARBAGE;
    const proposal = await hub.store.proposeState(
      {
        ...GUIDE_PROPOSAL,
        evidenceRefs: ["pr:12"],
        project: "alpha",
        origin: "peer",
        proposedBy: "agent-planner",
      },
      now,
    );
    await hub.store.promoteState(
      { project: "alpha", proposalId: proposal.id, promotedBy: "someone-else", evidenceRefs: ["review:1"] },
      now,
    );
    hub.clock.advance(1_000);
  });
  afterAll(async () => {
    await hub.dispose();
  });

  const cases = ROUTE_NAMES.flatMap((name) => CALLERS.map((caller) => [name, caller] as const));
  test.each(cases)("%s with the %s credential", async (name, caller) => {
    const route: RouteDefinition = ROUTES[name];
    const sample = await SAMPLES[name]({ app: hub.app, project: "alpha", key: tokens.own! }).catch(
      () => undefined,
    );
    // Samples that need the admin to set up (a run to finish) cannot be made here: those routes still answer
    // auth first, so an empty sample shows the same status for callers that fail auth.
    const response = await send(
      hub.app,
      name,
      sample ?? { params: { project: "alpha", runId: "run_x" } },
      tokens[caller],
    );
    const expected = expectedWithoutAdmin(route, caller);
    if (sample === undefined && expected.code === undefined) return;
    expect({ status: response.statusCode, code: expected.code && response.json().code }).toEqual({
      status: expected.status,
      code: expected.code,
    });
  });
});
