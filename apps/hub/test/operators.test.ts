import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  ADMIN_TOKEN,
  agentKey,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  gitCheckout,
  memoryFact,
  projectWithAgent,
  type TestHub,
} from "./helpers.js";

// Issue 15, part C, through a real hub on a real SQLite file: named operators (four eyes between operators), agent
// key listing and rotation, project update and removal, and the checkout roots the API refuses.

const POLICY = {
  key: "deploy.window",
  summary: "Deploys run Tuesday to Thursday",
  authority: "policy",
  confidence: "verified",
  evidenceRefs: ["doc:release-policy"],
} as const;

let hub: TestHub;
let alice: string;
let bob: string;
let agent: string;

async function operator(name: string): Promise<string> {
  const created = await call(hub.app, "POST", "/v1/operators", ADMIN_TOKEN, { name });
  expect(created.statusCode, created.body).toBe(201);
  expect(Object.keys(created.json())).toEqual(["name", "token"]);
  return created.json().token;
}

const propose = (token: string, body: object = POLICY, project = "demo") =>
  call(hub.app, "POST", `/v1/projects/${project}/state/proposals`, token, body);
const promote = (token: string, proposalId: string, project = "demo") =>
  call(hub.app, "POST", `/v1/projects/${project}/state/proposals/${proposalId}/promote`, token, {
    evidenceRefs: ["review:ops-3"],
  });

beforeAll(async () => {
  hub = await createTestHub();
  agent = await projectWithAgent(hub.app, "demo");
  alice = await operator("alice");
  bob = await operator("bob");
});
afterAll(async () => {
  await hub.dispose();
});

describe("four eyes between operators", () => {
  test("an operator's policy proposal is promoted by a second operator, never by its author", async () => {
    const proposed = await propose(alice);
    expect(proposed.statusCode, proposed.body).toBe(201);
    const { proposalId } = proposed.json();

    const own = await promote(alice, proposalId);
    expect(own.statusCode).toBe(403);
    expect(own.json().code).toBe("state_promotion_invalid");

    const second = await promote(bob, proposalId);
    expect(second.statusCode, second.body).toBe(200);
    const { state } = second.json();
    expect(state).toMatchObject({
      status: "current",
      authority: "policy",
      provenance: { sourceType: "human", sourceRef: "promoted-by:operator:bob" },
    });
    const history = await call(hub.app, "GET", "/v1/projects/demo/state/deploy.window/history", bob);
    const consumed = history.json().items.find((item: { id: string }) => item.id === proposalId);
    expect(consumed.provenance.sourceRef).toBe("proposed-by:operator:alice");
    // The request log names the operator, never a token.
    const promotedLine = hub.logs.find(
      (line) => line.event === "state_promoted" && line.by === "operator:bob",
    );
    expect(promotedLine).toBeDefined();
    for (const token of [alice, bob]) expect(hub.rawLogs.join("\n")).not.toContain(token);
  });

  test("the admin token keeps the guide's rule, and admin and operators promote each other's proposals", async () => {
    const byAdmin = (await propose(ADMIN_TOKEN, { ...POLICY, key: "admin.key" })).json().proposalId;
    expect((await promote(ADMIN_TOKEN, byAdmin)).json().code).toBe("state_promotion_invalid");
    const promoted = await promote(alice, byAdmin);
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json().state.provenance.sourceRef).toBe("promoted-by:operator:alice");

    const byBob = (await propose(bob, { ...POLICY, key: "bob.key" })).json().proposalId;
    const byTheAdmin = await promote(ADMIN_TOKEN, byBob);
    expect(byTheAdmin.statusCode, byTheAdmin.body).toBe(200);
    expect(byTheAdmin.json().state.provenance.sourceRef).toBe("promoted-by:kxm-admin");
  });

  test("an agent's proposal stays peer origin when an operator promotes it; agents still cannot claim policy", async () => {
    const refused = await propose(agent);
    expect(refused.json().code).toBe("context_authority_violation");
    const proposed = await propose(agent, { ...GUIDE_PROPOSAL, key: "agent.key" });
    const promoted = await promote(alice, proposed.json().proposalId);
    expect(promoted.json().state).toMatchObject({
      authority: "evidence",
      provenance: { sourceType: "peer" },
    });
    // An agent key never promotes.
    const byAgent = await promote(
      agent,
      (await propose(alice, { ...POLICY, key: "x.key" })).json().proposalId,
    );
    expect({ status: byAgent.statusCode, code: byAgent.json().code }).toEqual({
      status: 401,
      code: "invalid_auth",
    });
  });

  test("proposedBy must name the operator; an operator cannot propose as kxm-admin", async () => {
    const mismatch = await propose(alice, { ...POLICY, key: "named.key", proposedBy: "kxm-admin" });
    expect(mismatch.json().code).toBe("state_proposer_mismatch");
    const named = await propose(alice, { ...POLICY, key: "named.key", proposedBy: "operator:alice" });
    expect(named.statusCode, named.body).toBe(201);
  });

  test("operators do operator work in every project, but never manage the hub", async () => {
    await projectWithAgent(hub.app, "other");
    const packet = await call(hub.app, "POST", "/v1/projects/other/context", alice, {
      role: "planner",
      task: "deploy window",
    });
    expect(packet.statusCode, packet.body).toBe(200);
    const explained = await call(hub.app, "GET", "/v1/projects/demo/items/state_none/explain", alice);
    expect(explained.statusCode, explained.body).toBe(200);
    const management: Array<[string, string, object | undefined]> = [
      ["POST", "/v1/projects", { id: "by-operator" }],
      ["GET", "/v1/projects", undefined],
      ["POST", "/v1/projects/demo/agents", { agentId: "x" }],
      ["GET", "/v1/projects/demo/agents", undefined],
      ["POST", "/v1/operators", { name: "carol" }],
      ["GET", "/v1/operators", undefined],
      ["DELETE", "/v1/operators/bob", undefined],
      ["DELETE", "/v1/projects/other?force=true", undefined],
    ];
    for (const [method, url, body] of management) {
      const answer = await call(hub.app, method as "GET", url, alice, body);
      expect({ url, status: answer.statusCode, code: answer.json().code }).toEqual({
        url,
        status: 401,
        code: "invalid_auth",
      });
    }
  });

  test("operators are listed by name only; a revoked token is refused; a hub without an admin token honours none", async () => {
    const carol = await operator("carol");
    const listed = await call(hub.app, "GET", "/v1/operators", ADMIN_TOKEN);
    expect(listed.json().operators.map((o: { name: string }) => o.name)).toEqual(["alice", "bob", "carol"]);
    expect(listed.body).not.toContain("kxo_");
    const revoked = await call(hub.app, "DELETE", "/v1/operators/carol", ADMIN_TOKEN);
    expect(revoked.json()).toEqual({ revoked: true });
    const after = await call(hub.app, "GET", "/v1/projects/demo/contradictions", carol);
    expect({ status: after.statusCode, code: after.json().code }).toEqual({
      status: 401,
      code: "invalid_auth",
    });

    // The same database behind a hub started without an admin token: the control plane is off for operators too.
    const proposalId = (await propose(alice, { ...POLICY, key: "off.key" })).json().proposalId;
    await hub.reopen({ adminToken: undefined });
    try {
      const promoted = await promote(bob, proposalId);
      expect({ status: promoted.statusCode, code: promoted.json().code }).toEqual({
        status: 503,
        code: "admin_auth_not_configured",
      });
      const read = await call(hub.app, "GET", "/v1/projects/demo/contradictions", bob);
      expect(read.statusCode).toBe(401);
    } finally {
      await hub.reopen();
    }
  });
});

describe("agent keys: list and rotate", () => {
  test("list names agents, never keys; rotate shows a new key once and the old one stops working", async () => {
    await call(hub.app, "POST", "/v1/projects", ADMIN_TOKEN, { id: "keys" });
    const old = await agentKey(hub.app, "keys", "planner");
    const listed = await call(hub.app, "GET", "/v1/projects/keys/agents", ADMIN_TOKEN);
    expect(listed.json()).toEqual({
      project: "keys",
      agents: [{ agentId: "planner", createdAt: expect.any(String) }],
    });
    expect(listed.body).not.toContain(old);
    const rotated = await call(hub.app, "POST", "/v1/projects/keys/agents/planner/rotate", ADMIN_TOKEN);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { key } = rotated.json();
    expect(key).toMatch(/^kxm_[A-Za-z0-9_-]{43}$/);
    expect(key).not.toBe(old);
    const task = { role: "planner", task: "x" };
    expect((await call(hub.app, "POST", "/v1/projects/keys/context", old, task)).statusCode).toBe(401);
    expect((await call(hub.app, "POST", "/v1/projects/keys/context", key, task)).statusCode).toBe(200);
    expect(hub.rawLogs.join("\n")).not.toContain(key);
  });
});

describe("checkout roots and project update and removal", () => {
  test("the API refuses a checkout that is a file, missing, relative, too long or inside .kxm", async () => {
    const missing = join(hub.dir, "no-such-folder");
    await mkdir(join(hub.dir, "repo", ".kxm"), { recursive: true });
    for (const [checkoutRoot, message] of [
      ["/etc/passwd", "checkoutRoot: must be an existing folder on the hub's machine"],
      [missing, "checkoutRoot: must be an existing folder on the hub's machine"],
      ["relative/path", "checkoutRoot: must be an absolute path of at most 4096 characters"],
      [`/${"a".repeat(4096)}`, undefined],
      [
        join(hub.dir, "repo", ".kxm"),
        "checkoutRoot: must be the project's checkout, not a folder inside its .kxm/ folder",
      ],
    ] as const) {
      for (const [method, url, body] of [
        ["POST", "/v1/projects", { id: "refused", checkoutRoot }],
        ["PATCH", "/v1/projects/demo", { checkoutRoot }],
      ] as const) {
        const answer = await call(hub.app, method, url, ADMIN_TOKEN, body);
        expect(answer.statusCode, `${method} ${checkoutRoot.slice(0, 40)}`).toBe(400);
        expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(answer.json().code).toBe("invalid_request");
        if (message !== undefined) expect(answer.json().detail).toBe(message);
        // The path is never echoed.
        expect(answer.body).not.toContain(checkoutRoot);
      }
    }
    expect((await call(hub.app, "GET", "/v1/projects", ADMIN_TOKEN)).body).not.toContain('"refused"');
  });

  test("update moves the project to another checkout: its packets serve the new checkout's memory", async () => {
    const first = await gitCheckout(hub.dir, "first", {
      ".kxm/memory/a.md": memoryFact("fact-a", "Use pnpm"),
    });
    const second = await gitCheckout(hub.dir, "second", {
      ".kxm/memory/b.md": memoryFact("fact-b", "Use npm"),
    });
    await projectWithAgent(hub.app, "moved", "agent-planner", first);
    const ask = async () =>
      (
        await call(hub.app, "POST", "/v1/projects/moved/context", ADMIN_TOKEN, {
          role: "planner",
          task: "use",
        })
      ).json().audit.selectedIds;
    expect(await ask()).toEqual(["mem_fact-a"]);
    const updated = await call(hub.app, "PATCH", "/v1/projects/moved", ADMIN_TOKEN, { checkoutRoot: second });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().project).toMatchObject({ id: "moved", checkoutRoot: second });
    expect(await ask()).toEqual(["mem_fact-b"]);
  });

  test("remove refuses a project with records unless force=true, which deletes them; then it is gone", async () => {
    const key = await projectWithAgent(hub.app, "doomed");
    const proposed = await propose(key, GUIDE_PROPOSAL, "doomed");
    expect(proposed.statusCode).toBe(201);
    // Loaded into the pool, so removal must drop it from memory too.
    const packet = await call(hub.app, "POST", "/v1/projects/doomed/context", ADMIN_TOKEN, {
      role: "planner",
      task: "x",
    });
    expect(packet.statusCode).toBe(200);

    const refused = await call(hub.app, "DELETE", "/v1/projects/doomed", ADMIN_TOKEN);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: "project_not_empty",
      detail:
        "project doomed holds 1 item(s), 0 run(s) and 1 active agent key(s); remove them first, or remove the " +
        "project with force to delete them too",
    });
    const forced = await call(hub.app, "DELETE", "/v1/projects/doomed?force=true", ADMIN_TOKEN);
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json()).toEqual({
      removed: { project: "doomed", items: 1, runs: 0, journalEntries: 0, agentKeys: 1 },
    });
    const after = await call(hub.app, "POST", "/v1/projects/doomed/context", ADMIN_TOKEN, {
      role: "planner",
      task: "x",
    });
    expect({ status: after.statusCode, code: after.json().code }).toEqual({ status: 404, code: "not_found" });
    const byKey = await call(hub.app, "POST", "/v1/projects/doomed/context", key, {
      role: "planner",
      task: "x",
    });
    expect(byKey.statusCode).toBe(401);
  });
});

describe("a checkout that stops being a folder after registration", () => {
  test("its packets and recall are served without memory, never a 500", async () => {
    const { rm, writeFile } = await import("node:fs/promises");
    const root = join(hub.dir, "replaced");
    await mkdir(root);
    await projectWithAgent(hub.app, "replaced", "agent-planner", root);
    await rm(root, { recursive: true });
    await writeFile(root, "now a file\n");
    const packet = await call(hub.app, "POST", "/v1/projects/replaced/context", ADMIN_TOKEN, {
      role: "planner",
      task: "x",
    });
    expect(packet.statusCode, packet.body).toBe(200);
    const recall = await call(hub.app, "POST", "/v1/projects/replaced/recall", ADMIN_TOKEN, { query: "x" });
    expect(recall.statusCode, recall.body).toBe(200);
  });
});
