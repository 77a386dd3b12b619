import { join } from "node:path";
import { promoteSkill, proposeSkill } from "@kxm/memory-git";
import { factText } from "@kxm/test-support";
import { beforeEach, describe, expect, test } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  commitAll,
  GUIDE_PROPOSAL,
  gitCheckout,
  hubEachTest,
  projectWithAgent,
  writeFiles,
} from "./helpers.js";

// GET /v1/projects/:project/withheld (decision 0017): the authored facts and skills the hub withholds, by id and
// reason only, for agents as for operators. A real SQLite store, a real git checkout with committed facts and a
// promoted skill, the hub through inject.

const hub = hubEachTest();

const SUMMARIES = {
  release: "Run the release test suite before tagging",
  deploy: "Deploys wait for the release test suite",
  notes: "Release notes list every merged pull request",
  keep: "Keep the changelog in the repository root",
};

function fact(id: keyof typeof SUMMARIES, extra: Record<string, string> = {}): string {
  return factText({ id, summary: JSON.stringify(SUMMARIES[id]), ...extra });
}

let key: string;
let otherKey: string;
let skillId: string;

beforeEach(async () => {
  const root = await gitCheckout(hub.dir, "alpha", {
    ".kxm/memory/release.md": fact("release"),
    ".kxm/memory/deploy.md": fact("deploy"),
    // The hub's clock is 2026-10-01: expired.
    ".kxm/memory/notes.md": fact("notes", { expiresAt: "2026-09-01T00:00:00Z" }),
    ".kxm/memory/keep.md": fact("keep"),
  });
  const source = join(hub.dir, "sources", "release-checklist");
  await writeFiles(source, {
    "SKILL.md": "---\nname: release-checklist\ndescription: Release checklist\n---\n\n# release-checklist\n",
  });
  const now = new Date("2026-09-01T00:00:00Z");
  const proposed = await proposeSkill(root, source, { proposedBy: "agent-7", now });
  const promoted = await promoteSkill(root, proposed.id, {
    promotedBy: "reviewer",
    evidenceRefs: ["pr:1"],
    now,
  });
  skillId = `skill_${promoted.id}`;
  commitAll(root, "skill");
  key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
  otherKey = await projectWithAgent(hub.app, "beta", "agent-b");
});

async function withheld(token: string, project = "alpha") {
  const response = await call(hub.app, "GET", `/v1/projects/${project}/withheld`, token);
  return { status: response.statusCode, body: response.body, json: response.json() };
}

async function operatorToken(): Promise<string> {
  const created = await call(hub.app, "POST", "/v1/operators", ADMIN_TOKEN, { name: "alice" });
  expect(created.statusCode).toBe(201);
  return created.json().token;
}

describe("the withheld route", () => {
  test("lists only what is withheld by time until an operator revokes or forgets", async () => {
    expect(await withheld(key)).toMatchObject({
      status: 200,
      json: { items: [{ id: "mem_notes", reason: "expired" }] },
    });
  });

  test("names each withheld authored item by id with its reason, sorted, and no summary", async () => {
    const revoke = (value: string) =>
      call(hub.app, "POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
        target: "item",
        value,
        reason: "withdrawn",
      });
    expect((await revoke("mem_release")).statusCode).toBe(201);
    expect((await revoke(skillId)).statusCode).toBe(201);
    const forgotten = await call(hub.app, "POST", "/v1/projects/alpha/items/mem_deploy/forget", ADMIN_TOKEN, {
      reason: "wrong",
    });
    expect(forgotten.statusCode).toBe(201);
    // A withheld store item is not authored: never listed.
    const proposal = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", key, GUIDE_PROPOSAL);
    expect(proposal.statusCode).toBe(201);
    expect(
      (
        await call(hub.app, "POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
          target: "evidence",
          value: "pr:12",
          reason: "withdrawn",
        })
      ).statusCode,
    ).toBe(201);

    const expected = {
      items: [
        { id: "mem_deploy", reason: "forgotten" },
        { id: "mem_notes", reason: "expired" },
        { id: "mem_release", reason: "revoked" },
        { id: skillId, reason: "revoked" },
      ],
    };
    const asAgent = await withheld(key);
    expect(asAgent.status).toBe(200);
    expect(asAgent.json).toEqual(expected);
    for (const summary of [...Object.values(SUMMARIES), GUIDE_PROPOSAL.summary, "Release checklist"]) {
      expect(asAgent.body).not.toContain(summary);
    }
    expect((await withheld(ADMIN_TOKEN)).json).toEqual(expected);
    expect(await withheld(await operatorToken())).toMatchObject({ status: 200, json: expected });
  });

  test("another project's agent key is 403 and an unknown project 404, as on every project route", async () => {
    expect(await withheld(otherKey)).toMatchObject({
      status: 403,
      json: { code: "context_isolation_violation" },
    });
    expect(await withheld(ADMIN_TOKEN, "ghost")).toMatchObject({ status: 404, json: { code: "not_found" } });
    // The other project's own list is its own: no checkout, nothing withheld.
    expect(await withheld(otherKey, "beta")).toMatchObject({ status: 200, json: { items: [] } });
  });
});
