import { createHubClient, type HubClient } from "@kxm/contract/client";
import type { ServingHub } from "@kxm/hub";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  type RunResult,
} from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm context revoke`, `revocations`, `unrevoke`, `forget`, `tombstones` and `unforget` as real CLI processes
// against a real hub (decision 0017).

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const SUMMARY = "Deploy keys live in the vault";

let hub: ServingHub;
let admin: HubClient;
let agentKey: string;
let checkout: string;
let proposalId: string;

function cli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return kxm(args, { cwd: checkout, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN, ...env } });
}

async function recalled(): Promise<{ ids: string[]; gaps: string[] }> {
  const answer = await admin.recall({ params: { project: "demo" }, body: { query: "" } });
  // Only the withheld gaps: an empty recall has gaps of its own.
  const gaps = answer.unresolvedGaps.filter((gap) => gap.startsWith("items_withheld:"));
  return { ids: answer.items.map((item) => item.id), gaps };
}

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  checkout = await gitRepo("kxm-cli-revoke-");
  await admin.createProject({ body: { id: "demo" } });
  agentKey = (await admin.createAgentKey({ params: { project: "demo" }, body: { agentId: "agent-planner" } }))
    .key;
  const agent = createHubClient({ baseUrl: hub.url, token: agentKey });
  proposalId = (
    await agent.proposeState({
      params: { project: "demo" },
      body: {
        key: "deploy.keys",
        summary: SUMMARY,
        authority: "evidence",
        confidence: "verified",
        evidenceRefs: ["pr:7"],
      },
    })
  ).proposalId;
});

afterAll(async () => {
  await hub?.close();
});

describe("kxm context revoke, revocations and unrevoke", () => {
  test("revoke withholds, revocations lists, unrevoke lifts", async () => {
    expect((await recalled()).ids).toEqual([proposalId]);
    const revoked = await cli([
      "context",
      "revoke",
      "demo",
      "--evidence",
      "pr:7",
      "--reason",
      "bad PR",
      "--json",
    ]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const { revocation } = json<{ revocation: { id: string; target: string; revokedBy: string } }>(revoked);
    expect(revocation).toMatchObject({ target: "evidence", revokedBy: "kxm-admin" });
    expect(await recalled()).toEqual({ ids: [], gaps: ["items_withheld:revoked:1"] });

    const [list, explained] = await Promise.all([
      cli(["context", "revocations", "demo"]),
      cli(["context", "explain", "demo", proposalId]),
    ]);
    // Explain still finds a withheld item, and says why on the line after the item's own.
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout.split("\n").slice(0, 2)).toEqual([
      `${proposalId}: state, evidence, verified, origin peer (proposed-by:agent-planner)`,
      "Withheld from every packet and recall: revoked",
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`^${revocation.id} active evidence pr:7 by kxm-admin at \\S+: bad PR\\n$`),
    );

    const lifted = await cli(["context", "unrevoke", "demo", revocation.id, "--reason", "fine after all"]);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stdout).toMatch(new RegExp(`^Lifted ${revocation.id} \\(kxm-admin at \\S+\\)\\n$`));
    expect(await recalled()).toEqual({ ids: [proposalId], gaps: [] });
    const listed = json<{ revocations: { liftReason?: string }[] }>(
      await cli(["context", "revocations", "demo", "--json"]),
    );
    expect(listed.revocations.map((r) => r.liftReason)).toEqual(["fine after all"]);

    expectJsonFailure(
      await cli(["context", "unrevoke", "demo", revocation.id, "--reason", "again", "--json"]),
      "invalid_request",
    );
  });

  test("exactly one target is a usage error otherwise", async () => {
    expectUsageError(
      await cli(["context", "revoke", "demo", "--reason", "r"]),
      "context revoke",
      "give exactly one of --evidence, --source, --source-prefix, --item or --agent",
    );
    expectUsageError(
      await cli(["context", "revoke", "demo", "--item", "a", "--agent", "b", "--reason", "r"]),
      "context revoke",
    );
  });

  test("an agent key cannot revoke", async () => {
    const refused = await cli(
      ["context", "revoke", "demo", "--agent", "agent-planner", "--reason", "r", "--json"],
      // The key sent where an operator's token goes: the hub refuses it.
      { KXM_AUTH_TOKEN: undefined, KXM_OPERATOR_TOKEN: agentKey },
    );
    expectJsonFailure(refused, "invalid_auth");
    expect((await recalled()).ids).toEqual([proposalId]);
  });
});

describe("kxm context forget, tombstones and unforget", () => {
  test("forget deletes and keeps the hash; the content is refused until unforget", async () => {
    const forgot = await cli(["context", "forget", "demo", proposalId, "--reason", "secret location"]);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stdout).toMatch(
      new RegExp(
        `^Forgot ${proposalId} as tomb_[0-9a-f]{24} \\(deleted ${proposalId}; sha256 [0-9a-f]{64}\\)\\n$`,
      ),
    );
    expect(await recalled()).toEqual({ ids: [], gaps: [] });

    const listed = json<{ tombstones: { id: string; kind: string; itemId: string }[] }>(
      await cli(["context", "tombstones", "demo", "--json"]),
    );
    expect(listed.tombstones).toHaveLength(1);
    const tombstone = listed.tombstones[0]!;
    expect(tombstone).toMatchObject({ kind: "item", itemId: proposalId });
    expect(JSON.stringify(listed)).not.toContain(SUMMARY);
    const human = await cli(["context", "tombstones", "demo"]);
    expect(human.stdout).toMatch(
      new RegExp(`^${tombstone.id} active item ${proposalId} sha256 [0-9a-f]{64} by kxm-admin`),
    );

    const again = await cli([
      "context",
      "propose",
      "demo",
      "--key",
      "deploy.keys",
      "--summary",
      SUMMARY,
      "--authority",
      "evidence",
      "--confidence",
      "verified",
      "--evidence",
      "pr:8",
    ]);
    expectFailureLine(again, "context propose", /tombstone/);

    const lifted = await cli(["context", "unforget", "demo", tombstone.id, "--reason", "moved the keys"]);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stdout).toMatch(new RegExp(`^Lifted ${tombstone.id} \\(kxm-admin at \\S+\\)\\n$`));
    const proposed = await cli([
      "context",
      "propose",
      "demo",
      "--key",
      "deploy.keys",
      "--summary",
      SUMMARY,
      "--authority",
      "evidence",
      "--confidence",
      "verified",
      "--evidence",
      "pr:8",
    ]);
    expect(proposed.code, proposed.stderr).toBe(0);
  });

  test("an unknown item is not_found, with one line", async () => {
    expectFailureLine(
      await cli(["context", "forget", "demo", "state_nothing", "--reason", "r"]),
      "context forget",
    );
    expectJsonFailure(
      await cli(["context", "forget", "demo", "state_nothing", "--reason", "r", "--json"]),
      "not_found",
    );
  });
});
