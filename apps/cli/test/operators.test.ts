import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectFailureLine, expectJsonFailure, expectUsageError, gitRepo, json, kxm } from "./support/cli.js";
import { POLICY_FLAGS, startTestHub } from "./support/hub.js";

// Issue 15, part C, end to end: the built `kxm` against a real hub on a loopback port. Named operators (four eyes
// between operators), the CLI acting as an agent with KXM_AGENT_KEY, the credential precedence, agent key listing
// and rotation, and project update and removal.

const ADMIN_TOKEN = "test-admin-token-operators-0123456789";

let hub: { url: string; close(): Promise<void> };
let admin: HubClient;
let cwd: string;

/** Runs kxm against the test hub with exactly the credentials given (none unless named). */
function cli(args: readonly string[], credentials: Record<string, string | undefined> = {}) {
  return kxm(args, {
    cwd,
    env: {
      KXM_HUB_URL: hub.url,
      KXM_AUTH_TOKEN: undefined,
      KXM_OPERATOR_TOKEN: undefined,
      KXM_AGENT_KEY: undefined,
      ...credentials,
    },
  });
}
const asAdmin = { KXM_AUTH_TOKEN: ADMIN_TOKEN };

async function operatorToken(name: string): Promise<string> {
  const added = await cli(["hub", "operators", "add", name, "--json"], asAdmin);
  expect(added.code, added.stderr).toBe(0);
  const answer = json<{ name: string; token: string }>(added);
  expect(answer.name).toBe(name);
  expect(answer.token).toMatch(/^kxo_[A-Za-z0-9_-]{43}$/);
  return answer.token;
}

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  cwd = await gitRepo();
  await admin.createProject({ body: { id: "demo", checkoutRoot: cwd } });
  await admin.createProject({ body: { id: "other", checkoutRoot: cwd } });
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe("kxm hub operators and four eyes", () => {
  test("add shows the token once; a second operator promotes the first's policy proposal, its author cannot", async () => {
    const added = await cli(["hub", "operators", "add", "alice"], asAdmin);
    expect(added.code, added.stderr).toBe(0);
    const alice = /kxo_[A-Za-z0-9_-]{43}/.exec(added.stdout)?.[0] ?? "";
    expect(added.stdout).toBe(
      `Created a token for operator alice:\n\n  ${alice}\n\n` +
        "Store it now: it will not be shown again. The operator exports it as KXM_OPERATOR_TOKEN.\n",
    );
    const bob = await operatorToken("bob");

    // The operator token wins over the admin token when both are set.
    const proposed = await cli(["context", "propose", "demo", ...POLICY_FLAGS, "--json"], {
      ...asAdmin,
      KXM_OPERATOR_TOKEN: alice,
    });
    expect(proposed.code, proposed.stderr).toBe(0);
    const { proposalId } = json<{ proposalId: string }>(proposed);

    const own = await cli(["context", "promote", "demo", proposalId, "--evidence", "review:ops-3"], {
      KXM_OPERATOR_TOKEN: alice,
    });
    expectFailureLine(own, "context promote", /author/);
    const second = await cli(
      ["context", "promote", "demo", proposalId, "--evidence", "review:ops-3", "--json"],
      {
        KXM_OPERATOR_TOKEN: bob,
      },
    );
    expect(second.code, second.stderr).toBe(0);
    const { state } = json<{
      state: { authority: string; provenance: { sourceType: string; sourceRef: string } };
    }>(second);
    expect(state.authority).toBe("policy");
    expect(state.provenance).toMatchObject({ sourceType: "human", sourceRef: "promoted-by:operator:bob" });
    const history = await admin.stateHistory({ params: { project: "demo", key: "deploy.window" } });
    expect(history.items.find((item) => item.id === proposalId)?.provenance.sourceRef).toBe(
      "proposed-by:operator:alice",
    );
  });

  test("the admin token alone keeps the guide's rule: it cannot promote its own proposal", async () => {
    const proposed = await cli(
      [
        "context",
        "propose",
        "demo",
        ...POLICY_FLAGS.map((flag) => (flag === "deploy.window" ? "admin.key" : flag)),
      ],
      asAdmin,
    );
    expect(proposed.code, proposed.stderr).toBe(0);
    const proposalId = /state_[0-9a-f]+/.exec(proposed.stdout)?.[0] ?? "";
    const own = await cli(["context", "promote", "demo", proposalId, "--evidence", "r:1", "--json"], asAdmin);
    expectJsonFailure(own, "state_promotion_invalid");
  });

  test("list names operators only; revoke stops a token; operators cannot manage the hub", async () => {
    const carol = await operatorToken("carol");
    const list = await cli(["hub", "operators", "list"], asAdmin);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^carol {2}\d{4}-\d\d-\d\dT/m);
    expect(list.stdout).not.toContain("kxo_");
    const listJson = json<{ operators: Array<{ name: string }> }>(
      await cli(["hub", "operators", "list", "--json"], asAdmin),
    );
    expect(listJson.operators.map((operator) => operator.name)).toContain("carol");

    const manage = await cli(["hub", "operators", "list"], { KXM_OPERATOR_TOKEN: carol });
    expectFailureLine(
      manage,
      "hub operators list",
      "the hub refused the admin token (KXM_AUTH_TOKEN is unset): export the hub's admin token",
    );

    const revoked = await cli(["hub", "operators", "revoke", "carol"], asAdmin);
    expect(revoked.stdout).toBe("Revoked the token of operator carol\n");
    const again = await cli(["hub", "operators", "revoke", "carol", "--json"], asAdmin);
    expect(json(again)).toEqual({ revoked: false });
    const refused = await cli(["context", "state", "demo", "deploy.window"], { KXM_OPERATOR_TOKEN: carol });
    expectFailureLine(
      refused,
      "context state",
      `the hub refused the operator token (KXM_OPERATOR_TOKEN is unknown or revoked at the hub at ${hub.url})`,
    );
    const badName = await cli(["hub", "operators", "add", "Not A Name", "--json"], asAdmin);
    expectJsonFailure(badName, "invalid_request");
  });
});

describe("the CLI as an agent (KXM_AGENT_KEY)", () => {
  test("propose, get, recall and episode act as the agent; promote is refused with a clear line", async () => {
    const added = await cli(["hub", "agents", "add", "demo", "planner", "--json"], asAdmin);
    const { key } = json<{ key: string }>(added);
    // The agent key wins over the admin token for agent work, so a leaked admin token does not raise authority.
    const asAgent = { KXM_AGENT_KEY: key, KXM_AUTH_TOKEN: ADMIN_TOKEN };
    const policy = await cli(["context", "propose", "demo", ...POLICY_FLAGS, "--json"], asAgent);
    expectJsonFailure(policy, "context_authority_violation");
    const proposed = await cli(
      [
        "context",
        "propose",
        "demo",
        "--key",
        "release.branch",
        "--summary",
        "Releases are cut from the main branch",
        "--authority",
        "evidence",
        "--confidence",
        "verified",
        "--evidence",
        "pr:12",
        "--json",
      ],
      asAgent,
    );
    expect(proposed.code, proposed.stderr).toBe(0);
    const { proposalId } = json<{ proposalId: string }>(proposed);
    const history = await admin.stateHistory({ params: { project: "demo", key: "release.branch" } });
    expect(history.items.find((item) => item.id === proposalId)?.provenance).toMatchObject({
      sourceType: "peer",
      sourceRef: "proposed-by:planner",
    });

    const packet = await cli(
      ["context", "get", "demo", "--role", "planner", "--task", "release", "--json"],
      asAgent,
    );
    expect(packet.code, packet.stderr).toBe(0);
    const recall = await cli(["context", "recall", "demo", "--query", "release", "--json"], asAgent);
    expect(recall.code, recall.stderr).toBe(0);
    const episodes = await cli(["context", "episode", "demo", "--json"], asAgent);
    expect(episodes.code, episodes.stderr).toBe(0);
    const foreign = await cli(["context", "recall", "other", "--query", "release", "--json"], asAgent);
    expectJsonFailure(foreign, "context_isolation_violation");

    // Promotion is operator work: with only the agent key the CLI says what is missing.
    const promote = await cli(["context", "promote", "demo", proposalId, "--evidence", "review:1"], {
      KXM_AGENT_KEY: key,
    });
    expectFailureLine(
      promote,
      "context promote",
      "an agent key cannot do this: export KXM_OPERATOR_TOKEN or KXM_AUTH_TOKEN (KXM_AGENT_KEY is sent only for agent work)",
    );
    // With the admin token beside it, the admin promotes (the agent key is not sent for operator work).
    const promoted = await cli(
      ["context", "promote", "demo", proposalId, "--evidence", "review:1", "--json"],
      asAgent,
    );
    expect(promoted.code, promoted.stderr).toBe(0);

    const revoked = await cli(["context", "recall", "demo", "--query", "x"], {
      KXM_AGENT_KEY: "kxm_not-a-real-key",
    });
    expectFailureLine(
      revoked,
      "context recall",
      `the hub refused the agent key (KXM_AGENT_KEY is unknown or revoked at the hub at ${hub.url})`,
    );
  });
});

describe("kxm hub agents list and rotate", () => {
  test("list shows agents, never keys; rotate prints a new key once and the old key stops working", async () => {
    await admin.createProject({ body: { id: "keys", checkoutRoot: cwd } });
    const old = (await admin.createAgentKey({ params: { project: "keys" }, body: { agentId: "critic" } }))
      .key;
    const list = await cli(["hub", "agents", "list", "keys"], asAdmin);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^critic {2}\d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
    expect(list.stdout).not.toContain(old);
    const listJson = json(await cli(["hub", "agents", "list", "keys", "--json"], asAdmin));
    expect(listJson).toEqual({
      project: "keys",
      agents: [{ agentId: "critic", createdAt: expect.any(String) }],
    });

    const rotated = await cli(["hub", "agents", "rotate", "keys", "critic"], asAdmin);
    expect(rotated.code, rotated.stderr).toBe(0);
    const key = /kxm_[A-Za-z0-9_-]{43}/.exec(rotated.stdout)?.[0] ?? "";
    expect(key).not.toBe(old);
    expect(rotated.stdout).toBe(
      "Rotated the key of agent critic in project keys; the old key no longer works:\n\n" +
        `  ${key}\n\nStore it now: it will not be shown again.\n`,
    );
    const task = ["context", "get", "keys", "--role", "critic", "--task", "x", "--json"];
    expectJsonFailure(await cli(task, { KXM_AGENT_KEY: old }), "invalid_auth");
    expect((await cli(task, { KXM_AGENT_KEY: key })).code).toBe(0);

    expectJsonFailure(
      await cli(["hub", "agents", "rotate", "keys", "nobody", "--json"], asAdmin),
      "not_found",
    );
    const empty = await cli(["hub", "agents", "list", "other"], asAdmin);
    expect(empty.stdout).toBe("No agent of project other holds an active key.\n");
  });
});

describe("kxm hub projects update and remove", () => {
  test("update moves the checkout (relative to --cwd); a missing folder is a usage error", async () => {
    await admin.createProject({ body: { id: "moving", checkoutRoot: cwd } });
    await mkdir(join(cwd, "elsewhere"));
    const updated = await cli(["hub", "projects", "update", "moving", "--checkout", "elsewhere"], asAdmin);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(`Updated project moving (checkout ${join(cwd, "elsewhere")})\n`);
    const listed = await admin.listProjects({});
    expect(listed.projects.find((project) => project.id === "moving")?.checkoutRoot).toBe(
      join(cwd, "elsewhere"),
    );
    const missing = await cli(["hub", "projects", "update", "moving", "--checkout", "nowhere"], asAdmin);
    expectUsageError(missing, "hub projects update", "--checkout: no folder at nowhere");
    const unknown = await cli(["hub", "projects", "update", "ghost", "--checkout", ".", "--json"], asAdmin);
    expectJsonFailure(unknown, "not_found");
  });

  test("remove refuses a project with records unless --force, which says what it deleted", async () => {
    await admin.createProject({ body: { id: "empty", checkoutRoot: cwd } });
    const removedEmpty = await cli(["hub", "projects", "remove", "empty"], asAdmin);
    expect(removedEmpty.stdout).toBe(
      "Removed project empty with 0 items, 0 runs, 0 journal entries and 0 agent keys\n",
    );

    await admin.createProject({ body: { id: "full", checkoutRoot: cwd } });
    const { key } = await admin.createAgentKey({ params: { project: "full" }, body: { agentId: "planner" } });
    await createHubClient({ baseUrl: hub.url, token: key }).proposeState({
      params: { project: "full" },
      body: {
        key: "release.branch",
        summary: "From main",
        authority: "evidence",
        confidence: "verified",
        evidenceRefs: ["pr:1"],
      },
    });
    const refused = await cli(["hub", "projects", "remove", "full"], asAdmin);
    expectFailureLine(
      refused,
      "hub projects remove",
      "project full holds 1 item(s), 0 run(s) and 1 active agent key(s); remove them first, or remove the " +
        "project with force to delete them too",
    );
    const forced = await cli(["hub", "projects", "remove", "full", "--force", "--json"], asAdmin);
    expect(forced.code, forced.stderr).toBe(0);
    expect(json(forced)).toEqual({
      removed: { project: "full", items: 1, runs: 0, journalEntries: 0, agentKeys: 1 },
    });
    const ids = (await admin.listProjects({})).projects.map((project) => project.id);
    expect(ids).not.toContain("full");
    expectJsonFailure(await cli(["hub", "projects", "remove", "full", "--json"], asAdmin), "not_found");
  });
});
