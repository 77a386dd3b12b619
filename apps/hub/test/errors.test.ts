import { createRequire } from "node:module";
import { ERROR_CATALOGUE, type ErrorCode, ROUTES, type RouteDefinition, type RouteName } from "@kxm/contract";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  finishedEntry,
  journalEntry,
  revocation,
  SAMPLES,
  type Sample,
  send,
  startRun,
  tombstone,
} from "./fixtures.js";
import {
  ADMIN_TOKEN,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  gitCheckout,
  memoryFact,
  projectWithAgent,
  runSql,
  type TestHub,
} from "./helpers.js";

const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

/**
 * Codes a route's table entry lists that this hub cannot answer on that route, and why. Everything else listed
 * must be produced by a scenario below.
 */
const UNREACHABLE: Partial<Record<RouteName, Partial<Record<ErrorCode, string>>>> = {};
for (const name of ROUTE_NAMES) {
  if (ROUTES[name].auth === "admin" || ROUTES[name].auth === "operator") {
    UNREACHABLE[name] = {
      context_isolation_violation:
        "admin and operator routes take no agent key: an agent key, of any project, is 401 invalid_auth",
    };
  }
}

interface Context {
  hub: TestHub;
  noAdmin: TestHub;
  limited: TestHub;
  key: string;
  otherKey: string;
}

type Scenario = (context: Context) => Promise<LightMyRequestResponse>;

const post = (context: Context, url: string, body: unknown, token: string = ADMIN_TOKEN) =>
  call(context.hub.app, "POST", url, token, body);
const get = (context: Context, url: string, token: string = ADMIN_TOKEN) =>
  call(context.hub.app, "GET", url, token);

async function sample(context: Context, name: RouteName): Promise<Sample> {
  return SAMPLES[name]({ app: context.hub.app, project: "demo", key: context.key });
}

/** Route-specific scenarios; invalid_auth, context_isolation_violation and rate_limited are generic (below). */
const SCENARIOS: Partial<Record<RouteName, Partial<Record<ErrorCode, Scenario>>>> = {
  getContext: {
    invalid_request: (c) => post(c, "/v1/projects/demo/context", { task: "no role" }),
    context_limits_exceeded: (c) =>
      post(c, "/v1/projects/demo/context", { role: "planner", task: "x".repeat(2001) }),
    not_found: (c) => post(c, "/v1/projects/ghost/context", { role: "planner", task: "t" }),
  },
  recall: {
    invalid_request: (c) => post(c, "/v1/projects/demo/recall", { query: 12 }),
    context_limits_exceeded: (c) => post(c, "/v1/projects/demo/recall", { query: "x", limit: 101 }),
    not_found: (c) => post(c, "/v1/projects/ghost/recall", { query: "x" }),
  },
  proposeState: {
    invalid_request: (c) =>
      post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, authority: "boss" }, c.key),
    invalid_state_proposal: (c) =>
      post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, evidenceRefs: [] }, c.key),
    context_authority_violation: (c) =>
      post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, authority: "policy" }, c.key),
    state_proposer_mismatch: (c) =>
      post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, proposedBy: "someone-else" }, c.key),
    context_limits_exceeded: (c) =>
      post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, key: "k".repeat(201) }, c.key),
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/state/proposals", ADMIN_TOKEN, GUIDE_PROPOSAL),
    not_found: (c) => post(c, "/v1/projects/ghost/state/proposals", GUIDE_PROPOSAL),
    content_forgotten: async (c) => {
      const summary = await forgottenSummary(c, "Releases were cut from a fork");
      return post(c, "/v1/projects/demo/state/proposals", { ...GUIDE_PROPOSAL, summary }, c.key);
    },
  },
  promoteState: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/state/proposals/state_x/promote", ADMIN_TOKEN, {
        evidenceRefs: ["r"],
      }),
    invalid_request: (c) =>
      post(c, "/v1/projects/demo/state/proposals/state_x/promote", { evidenceRefs: ["r"], note: "extra" }),
    invalid_state_proposal: async (c) => {
      const { params } = await sample(c, "promoteState");
      return post(c, `/v1/projects/demo/state/proposals/${params?.proposalId}/promote`, { evidenceRefs: [] });
    },
    state_proposal_not_found: (c) =>
      post(c, "/v1/projects/demo/state/proposals/state_missing/promote", { evidenceRefs: ["r"] }),
    state_proposal_not_promotable: async (c) => {
      const { params } = await sample(c, "promoteState");
      const url = `/v1/projects/demo/state/proposals/${params?.proposalId}/promote`;
      expect((await post(c, url, { evidenceRefs: ["r"] })).statusCode).toBe(200);
      return post(c, url, { evidenceRefs: ["r"] });
    },
    state_promotion_invalid: async (c) => {
      const proposed = await post(c, "/v1/projects/demo/state/proposals", {
        ...GUIDE_PROPOSAL,
        key: "admin.own",
      });
      return post(c, `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`, {
        evidenceRefs: ["r"],
      });
    },
  },
  getState: {
    invalid_request: (c) => get(c, "/v1/projects/demo/state/release.branch?asOf=yesterday"),
    not_found: (c) => get(c, "/v1/projects/demo/state/no.such.key"),
    state_contradiction: (c) => get(c, "/v1/projects/demo/state/contested.key"),
  },
  stateHistory: {
    invalid_request: (c) => get(c, `/v1/projects/demo/state/${"k".repeat(201)}/history`),
    not_found: (c) => get(c, "/v1/projects/ghost/state/release.branch/history"),
  },
  contradictions: {
    invalid_request: (c) => get(c, "/v1/projects/bad%20id/contradictions"),
    not_found: (c) => get(c, "/v1/projects/ghost/contradictions"),
  },
  episodes: {
    invalid_request: (c) => get(c, "/v1/projects/demo/episodes?limit=many"),
    context_limits_exceeded: (c) => get(c, "/v1/projects/demo/episodes?limit=51"),
    not_found: (c) => get(c, "/v1/projects/ghost/episodes"),
  },
  explain: {
    invalid_request: (c) => get(c, "/v1/projects/demo/items/bad%20id/explain"),
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "GET", "/v1/projects/demo/items/x/explain", ADMIN_TOKEN),
    not_found: (c) => get(c, "/v1/projects/ghost/items/x/explain"),
  },
  listPackets: {
    invalid_request: (c) => get(c, "/v1/projects/demo/packets?cursor=not-a-cursor"),
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "GET", "/v1/projects/demo/packets", ADMIN_TOKEN),
    context_limits_exceeded: (c) => get(c, "/v1/projects/demo/packets?limit=51"),
    not_found: (c) => get(c, "/v1/projects/ghost/packets"),
  },
  getPacket: {
    invalid_request: (c) => get(c, "/v1/projects/demo/packets/pkt_not-hex"),
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "GET", `/v1/projects/demo/packets/pkt_${"0".repeat(32)}`, ADMIN_TOKEN),
    not_found: (c) => get(c, `/v1/projects/demo/packets/pkt_${"0".repeat(32)}`),
  },
  replayPacket: {
    invalid_request: (c) => post(c, `/v1/projects/demo/packets/pkt_${"0".repeat(32)}/replay`, {}),
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", `/v1/projects/demo/packets/pkt_${"0".repeat(32)}/replay`, ADMIN_TOKEN, {
        task: "t",
      }),
    context_limits_exceeded: (c) =>
      post(c, `/v1/projects/demo/packets/pkt_${"0".repeat(32)}/replay`, { task: "x".repeat(2001) }),
    not_found: (c) => post(c, `/v1/projects/demo/packets/pkt_${"0".repeat(32)}/replay`, { task: "t" }),
    replay_task_mismatch: async (c) => replayOf(c, await servedPacket(c, "a task"), "another task"),
    replay_ranker_changed: async (c) => {
      const packetId = await servedPacket(c, "an older ranker's task");
      runSql(
        c.hub.dbPath,
        "update packet_audits set ranker_version = 'kxm-rank-0' where packet_id = ?",
        packetId,
      );
      return replayOf(c, packetId, "an older ranker's task");
    },
    replay_history_purged: async (c) => {
      const packetId = await servedPacket(c, "a task from before replay");
      runSql(c.hub.dbPath, "update packet_audits set inputs = null where packet_id = ?", packetId);
      return replayOf(c, packetId, "a task from before replay");
    },
    replay_history_forgotten: async (c) => {
      const entryId = await journalEntry(c.hub.app, "demo", "A note that will be forgotten");
      const packetId = await servedPacket(c, "the note that will be forgotten");
      const forgotten = await post(c, `/v1/projects/demo/items/${entryId}/forget`, { reason: "forgotten" });
      expect(forgotten.statusCode, forgotten.body).toBe(201);
      return replayOf(c, packetId, "the note that will be forgotten");
    },
    replay_memory_unavailable: async (c) => {
      const root = await gitCheckout(c.hub.dir, "replay-memory", {
        ".kxm/memory/a.md": memoryFact("a", "A fact"),
      });
      const created = await post(c, "/v1/projects", { id: "replay-memory", checkoutRoot: root });
      expect(created.statusCode, created.body).toBe(201);
      const packetId = await servedPacket(c, "a fact", "replay-memory");
      const other = await gitCheckout(c.hub.dir, "replay-memory-other", { "README.md": "other\n" });
      await call(c.hub.app, "PATCH", "/v1/projects/replay-memory", ADMIN_TOKEN, { checkoutRoot: other });
      return replayOf(c, packetId, "a fact", "replay-memory");
    },
    replay_mismatch: async (c) => {
      const proposed = await post(
        c,
        "/v1/projects/demo/state/proposals",
        { ...GUIDE_PROPOSAL, key: "replay.mismatch" },
        c.key,
      );
      expect(proposed.statusCode, proposed.body).toBe(201);
      const packetId = await servedPacket(c, "a pool that will not come back");
      // A record the packet never read appears in the file's history, as a copy of one it did read.
      runSql(
        c.hub.dbPath,
        "insert into record_versions (project, seq, kind, record_id, body, forgotten) select project, seq, kind, 'state_planted', json_set(body, '$.id', 'state_planted'), 0 from record_versions where record_id = ?",
        proposed.json().proposalId,
      );
      return replayOf(c, packetId, "a pool that will not come back");
    },
  },
  startRun: {
    invalid_request: (c) => post(c, "/v1/projects/demo/runs", { workflow: "" }),
    not_found: (c) => post(c, "/v1/projects/ghost/runs", { workflow: "ci" }),
  },
  finishRun: {
    invalid_request: async (c) =>
      post(c, `/v1/projects/demo/runs/${await startRun(c.hub.app, "demo")}/finish`, { outcome: "maybe" }),
    not_found: (c) => post(c, "/v1/projects/demo/runs/run_missing/finish", { outcome: "failed" }),
    // The episode's summary is `Run <id> of <workflow> <outcome>`: forgotten first, the finish is refused.
    content_forgotten: async (c) => {
      const started = await post(c, "/v1/projects/demo/runs", { workflow: "ci", runId: "run-forgotten" });
      expect(started.statusCode).toBe(201);
      await forgottenSummary(c, "Run run-forgotten of ci succeeded");
      return post(c, "/v1/projects/demo/runs/run-forgotten/finish", { outcome: "succeeded" });
    },
  },
  appendJournal: {
    invalid_request: async (c) =>
      post(c, `/v1/projects/demo/runs/${await startRun(c.hub.app, "demo")}/journal`, {
        category: "gossip",
        summary: "s",
      }),
    journal_evidence_required: async (c) =>
      post(c, `/v1/projects/demo/runs/${await startRun(c.hub.app, "demo")}/journal`, {
        category: "lesson",
        summary: "Retry flaky tests once",
      }),
    context_limits_exceeded: async (c) =>
      post(c, `/v1/projects/demo/runs/${await startRun(c.hub.app, "demo")}/journal`, {
        category: "observation",
        summary: "y".repeat(4001),
      }),
    not_found: (c) =>
      post(c, "/v1/projects/demo/runs/run_missing/journal", { category: "plan", summary: "s" }),
    content_forgotten: async (c) => {
      const summary = await forgottenSummary(c, "The deploy key was pasted here");
      return post(c, `/v1/projects/demo/runs/${await startRun(c.hub.app, "demo")}/journal`, {
        category: "observation",
        summary,
      });
    },
  },
  reviewJournal: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/journal/j_x/review", ADMIN_TOKEN, {}),
    invalid_request: async (c) =>
      post(c, `/v1/projects/demo/journal/${await finishedEntry(c.hub.app, "demo")}/review`, { note: "x" }),
    context_limits_exceeded: async (c) =>
      post(c, `/v1/projects/demo/journal/${await finishedEntry(c.hub.app, "demo")}/review`, {
        evidenceRefs: ["a", "a"],
      }),
    journal_review_invalid: async (c) => {
      const runId = await startRun(c.hub.app, "demo");
      const appended = await post(c, `/v1/projects/demo/runs/${runId}/journal`, {
        category: "plan",
        summary: "Ship on Friday",
      });
      return post(c, `/v1/projects/demo/journal/${appended.json().entry.id}/review`, {});
    },
    not_found: async (c) =>
      post(c, `/v1/projects/other/journal/${await finishedEntry(c.hub.app, "demo")}/review`, {}),
  },
  wikiRecords: {
    invalid_request: (c) => get(c, "/v1/projects/bad%20id/wiki/records"),
    not_found: (c) => get(c, "/v1/projects/ghost/wiki/records"),
  },
  createProject: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "POST", "/v1/projects", ADMIN_TOKEN, { id: "p" }),
    invalid_request: (c) => post(c, "/v1/projects", { id: "demo" }),
  },
  listProjects: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "GET", "/v1/projects", ADMIN_TOKEN),
  },
  createAgentKey: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/agents", ADMIN_TOKEN, { agentId: "a" }),
    invalid_request: (c) => post(c, "/v1/projects/demo/agents", { agentId: "agent-planner" }),
    not_found: (c) => post(c, "/v1/projects/ghost/agents", { agentId: "a" }),
  },
  revokeAgentKey: {
    invalid_request: (c) => call(c.hub.app, "DELETE", "/v1/projects/demo/agents/bad%20id", ADMIN_TOKEN),
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "DELETE", "/v1/projects/demo/agents/a", ADMIN_TOKEN),
    not_found: (c) => call(c.hub.app, "DELETE", "/v1/projects/ghost/agents/a", ADMIN_TOKEN),
  },
  updateProject: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "PATCH", "/v1/projects/demo", ADMIN_TOKEN, { checkoutRoot: "/" }),
    invalid_request: (c) =>
      call(c.hub.app, "PATCH", "/v1/projects/demo", ADMIN_TOKEN, { checkoutRoot: "/etc/passwd" }),
    not_found: (c) => call(c.hub.app, "PATCH", "/v1/projects/ghost", ADMIN_TOKEN, { checkoutRoot: "/" }),
  },
  removeProject: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "DELETE", "/v1/projects/demo", ADMIN_TOKEN),
    invalid_request: (c) => call(c.hub.app, "DELETE", "/v1/projects/demo?force=yes", ADMIN_TOKEN),
    not_found: (c) => call(c.hub.app, "DELETE", "/v1/projects/ghost", ADMIN_TOKEN),
    // demo holds an agent key and records: refused, and still there for every other scenario.
    project_not_empty: (c) => call(c.hub.app, "DELETE", "/v1/projects/demo", ADMIN_TOKEN),
  },
  listAgentKeys: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "GET", "/v1/projects/demo/agents", ADMIN_TOKEN),
    invalid_request: (c) => call(c.hub.app, "GET", "/v1/projects/bad%20id/agents", ADMIN_TOKEN),
    not_found: (c) => get(c, "/v1/projects/ghost/agents"),
  },
  rotateAgentKey: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/agents/a/rotate", ADMIN_TOKEN),
    invalid_request: (c) => call(c.hub.app, "POST", "/v1/projects/demo/agents/bad%20id/rotate", ADMIN_TOKEN),
    not_found: (c) => call(c.hub.app, "POST", "/v1/projects/demo/agents/nobody/rotate", ADMIN_TOKEN),
  },
  createOperator: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/operators", ADMIN_TOKEN, { name: "alice" }),
    invalid_request: (c) => post(c, "/v1/operators", { name: "Not A Name" }),
    context_limits_exceeded: (c) => post(c, "/v1/operators", { name: "o".repeat(65) }),
  },
  listOperators: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "GET", "/v1/operators", ADMIN_TOKEN),
  },
  revokeOperator: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "DELETE", "/v1/operators/alice", ADMIN_TOKEN),
    invalid_request: (c) => call(c.hub.app, "DELETE", "/v1/operators/Alice", ADMIN_TOKEN),
  },
  revoke: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, REVOKE),
    invalid_request: (c) => post(c, "/v1/projects/demo/revocations", { ...REVOKE, target: "everything" }),
    context_limits_exceeded: (c) =>
      post(c, "/v1/projects/demo/revocations", { ...REVOKE, reason: "r".repeat(501) }),
    not_found: (c) => post(c, "/v1/projects/ghost/revocations", REVOKE),
  },
  listRevocations: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "GET", "/v1/projects/demo/revocations", ADMIN_TOKEN),
    invalid_request: (c) => get(c, "/v1/projects/bad%20id/revocations"),
    not_found: (c) => get(c, "/v1/projects/ghost/revocations"),
  },
  unrevoke: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/revocations/rev_x/lift", ADMIN_TOKEN, { reason: "r" }),
    invalid_request: async (c) => {
      const id = await revocation(c.hub.app, "demo");
      expect((await post(c, `/v1/projects/demo/revocations/${id}/lift`, { reason: "r" })).statusCode).toBe(
        200,
      );
      return post(c, `/v1/projects/demo/revocations/${id}/lift`, { reason: "again" });
    },
    context_limits_exceeded: async (c) =>
      post(c, `/v1/projects/demo/revocations/${await revocation(c.hub.app, "demo")}/lift`, {
        reason: "r".repeat(501),
      }),
    not_found: (c) => post(c, "/v1/projects/demo/revocations/rev_missing/lift", { reason: "r" }),
  },
  forget: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/items/x/forget", ADMIN_TOKEN, { reason: "r" }),
    invalid_request: (c) => post(c, "/v1/projects/demo/items/x/forget", { reason: "r", note: "extra" }),
    context_limits_exceeded: (c) => post(c, "/v1/projects/demo/items/x/forget", { reason: "r".repeat(501) }),
    not_found: (c) => post(c, "/v1/projects/demo/items/state_missing/forget", { reason: "r" }),
  },
  listTombstones: {
    admin_auth_not_configured: (c) => call(c.noAdmin.app, "GET", "/v1/projects/demo/tombstones", ADMIN_TOKEN),
    invalid_request: (c) => get(c, "/v1/projects/bad%20id/tombstones"),
    not_found: (c) => get(c, "/v1/projects/ghost/tombstones"),
  },
  listWithheld: {
    invalid_request: (c) => get(c, "/v1/projects/bad%20id/withheld"),
    not_found: (c) => get(c, "/v1/projects/ghost/withheld"),
  },
  unforget: {
    admin_auth_not_configured: (c) =>
      call(c.noAdmin.app, "POST", "/v1/projects/demo/tombstones/tomb_x/lift", ADMIN_TOKEN, { reason: "r" }),
    invalid_request: async (c) => {
      const id = await tombstone(c.hub.app, "demo");
      expect((await post(c, `/v1/projects/demo/tombstones/${id}/lift`, { reason: "r" })).statusCode).toBe(
        200,
      );
      return post(c, `/v1/projects/demo/tombstones/${id}/lift`, { reason: "again" });
    },
    context_limits_exceeded: async (c) =>
      post(c, `/v1/projects/demo/tombstones/${await tombstone(c.hub.app, "demo")}/lift`, {
        reason: "r".repeat(501),
      }),
    not_found: (c) => post(c, "/v1/projects/demo/tombstones/tomb_missing/lift", { reason: "r" }),
  },
};

function genericScenario(name: RouteName, code: ErrorCode): Scenario | undefined {
  const route: RouteDefinition = ROUTES[name];
  if (code === "invalid_auth") return async (c) => send(c.hub.app, name, await sample(c, name));
  if (code === "context_isolation_violation" && route.auth === "project") {
    return async (c) => send(c.hub.app, name, await sample(c, name), c.otherKey);
  }
  if (code === "rate_limited") {
    return async (c) => {
      const token = `rate-limit-probe-${name}`;
      // The limit counts before authentication, so an unknown credential's second request is already over it.
      const probe: Sample = {
        params: {
          project: "demo",
          proposalId: "p",
          key: "k",
          itemId: "i",
          runId: "r",
          agentId: "a",
          entryId: "e",
          name: "n",
          revocationId: "rev_x",
          tombstoneId: "tomb_x",
        },
        body: {},
      };
      expect((await send(c.limited.app, name, probe, token)).statusCode).not.toBe(429);
      return send(c.limited.app, name, probe, token);
    };
  }
  return undefined;
}

const REVOKE = { target: "evidence", value: "pr:99", reason: "withdrawn" };

/** Writes a journal entry with this summary and forgets it: the summary is then forgotten content in demo. */
/** A packet served to the admin for `task` in `project`; answers its id. */
async function servedPacket(c: Context, task: string, project = "demo"): Promise<string> {
  const served = await post(c, `/v1/projects/${project}/context`, { role: "planner", task });
  expect(served.statusCode, served.body).toBe(200);
  return served.json().audit.packetId;
}

const replayOf = (c: Context, packetId: string, task: string, project = "demo") =>
  post(c, `/v1/projects/${project}/packets/${packetId}/replay`, { task });

async function forgottenSummary(c: Context, summary: string): Promise<string> {
  const entryId = await journalEntry(c.hub.app, "demo", summary);
  const forgotten = await post(c, `/v1/projects/demo/items/${entryId}/forget`, { reason: "forgotten" });
  expect(forgotten.statusCode, forgotten.body).toBe(201);
  return summary;
}

/** Makes two current values for one key, as only a damaged or hand-edited database can hold. */
async function plantContradiction(hub: TestHub, key: string): Promise<void> {
  for (const evidence of ["a", "b"]) {
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", ADMIN_TOKEN, {
      ...GUIDE_PROPOSAL,
      key,
      summary: `value ${evidence}`,
      proposedBy: "kxm-admin",
    });
    expect(proposed.statusCode).toBe(201);
  }
  const requireFromStore = createRequire(
    new URL("../../../packages/state-store/package.json", import.meta.url),
  );
  const Database = requireFromStore("better-sqlite3");
  const db = new Database(hub.dbPath);
  const rows = db
    .prepare("select id, body from items where project = 'demo' and state_key = ? and status = 'proposed'")
    .all(key) as { id: string; body: string }[];
  for (const row of rows) {
    const body = { ...JSON.parse(row.body), status: "current" };
    db.prepare("update items set status = 'current', body = ? where project = 'demo' and id = ?").run(
      JSON.stringify(body),
      row.id,
    );
  }
  db.close();
}

describe("every error code a route can answer", () => {
  const context = {} as Context;
  beforeAll(async () => {
    context.hub = await createTestHub();
    context.noAdmin = await createTestHub({ noAdmin: true });
    context.limited = await createTestHub({ rateLimit: { max: 1, timeWindowMs: 60_000 } });
    context.key = await projectWithAgent(context.hub.app, "demo");
    context.otherKey = await projectWithAgent(context.hub.app, "other");
    await context.noAdmin.store.createProject({ id: "demo" }, context.noAdmin.clock.now());
    await plantContradiction(context.hub, "contested.key");
  });
  afterAll(async () => {
    await Promise.all([context.hub.dispose(), context.noAdmin.dispose(), context.limited.dispose()]);
  });

  const cases = ROUTE_NAMES.flatMap((name) =>
    ROUTES[name].errors.map((code: ErrorCode) => [name, code] as [RouteName, ErrorCode]),
  );
  test.each(cases)("%s answers %s", async (name, code) => {
    const reason = UNREACHABLE[name]?.[code];
    if (reason !== undefined) return;
    const scenario = SCENARIOS[name]?.[code] ?? genericScenario(name, code);
    expect(scenario, `a scenario for ${name} ${code}`).toBeDefined();
    const response = await scenario!(context);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const problem = response.json();
    expect({ status: response.statusCode, code: problem.code }).toEqual({
      status: ERROR_CATALOGUE[code].status,
      code,
    });
    expect(problem).toEqual({
      type: `https://kxm.dev/errors/${code}`,
      title: ERROR_CATALOGUE[code].title,
      status: ERROR_CATALOGUE[code].status,
      code,
      detail: expect.any(String),
    });
  });

  test("the only listed codes not answered are the documented unreachable ones", () => {
    for (const [name, codes] of Object.entries(UNREACHABLE)) {
      for (const code of Object.keys(codes ?? {})) expect(ROUTES[name as RouteName].errors).toContain(code);
    }
  });
});
