import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ContextItem } from "@kxm/contract";
import { deriveContextItem, summarizeContextItems } from "@kxm/provenance";
import { factText } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  commitAll,
  GUIDE_PROPOSAL,
  gitCheckout,
  hubPerTest,
  plantItems,
  projectWithAgent,
  proposeAndPromote,
} from "./helpers.js";

// Expiry, review dates and fact checks in hub packets and recall (issue 20): an expired item is withheld with a
// counting gap, an item past its review date is served and named, and a fact whose committed check failed under a
// `withhold` policy leaves packets. The hub's clock is the test's (`buildHub`'s `now`), moved past the dates.

const hub = hubPerTest();

const REQUEST = { role: "critic", task: "release branch test suite", includeKinds: ["knowledge", "state"] };

function fact(id: string, summary: string, extra: Record<string, string> = {}): string {
  return factText({
    id,
    scope: "project",
    summary: JSON.stringify(summary),
    provenance: "\n  sourceType: git\n  sourceRef: docs/testing.md",
    evidenceRefs: "[]",
    ...extra,
  });
}

async function packet(
  project: string,
  key: string,
): Promise<{ ids: string[]; gaps: string[]; audit: string[] }> {
  const response = await call(hub.app, "POST", `/v1/projects/${project}/context`, key, REQUEST);
  expect(response.statusCode, response.body).toBe(200);
  const { packet, audit } = response.json();
  return { ids: [...audit.selectedIds].sort(), gaps: packet.unresolvedGaps, audit: audit.unresolvedGaps };
}

async function recall(project: string, key: string): Promise<{ ids: string[]; gaps: string[] }> {
  const response = await call(hub.app, "POST", `/v1/projects/${project}/recall`, key, { query: "release" });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  return { ids: body.items.map((item: { id: string }) => item.id).sort(), gaps: body.unresolvedGaps };
}

describe("authored facts with expiresAt and reviewBy", () => {
  test("served before the dates; review due from reviewBy; withheld and counted from expiresAt", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
        reviewBy: "2026-10-05",
        expiresAt: "2026-10-10T12:00:00Z",
      }),
      ".kxm/memory/suite.md": fact("suite", "Run the release test suite before tagging"),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);

    hub.clock.set("2026-10-01T09:00:00Z");
    expect(await packet("alpha", key)).toEqual({
      ids: ["mem_release", "mem_suite"],
      gaps: [],
      audit: [],
    });

    hub.clock.set("2026-10-05T00:00:00Z");
    const due = await packet("alpha", key);
    expect(due.ids).toEqual(["mem_release", "mem_suite"]);
    expect(due.gaps).toEqual(["review_due:mem_release"]);
    expect(due.audit).toEqual(due.gaps);
    expect((await recall("alpha", key)).gaps).toEqual(["review_due:mem_release"]);

    hub.clock.set("2026-10-10T12:00:00Z");
    const expired = await packet("alpha", key);
    expect(expired.ids).toEqual(["mem_suite"]);
    expect(expired.gaps).toEqual(["items_withheld:expired:1"]);
    expect(await recall("alpha", key)).toEqual({ ids: ["mem_suite"], gaps: ["items_withheld:expired:1"] });
  });

  test("a new commit that moves expiresAt later serves the fact again", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
        expiresAt: "2026-10-02",
      }),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    hub.clock.set("2026-10-03T00:00:00Z");
    expect((await packet("alpha", key)).gaps).toEqual([
      "no context records exist for this project yet",
      "items_withheld:expired:1",
    ]);
    await writeFile(
      join(root, ".kxm/memory/release.md"),
      fact("release", "Releases are cut from the release branch", { expiresAt: "2027-01-01" }),
    );
    await commitAll(root, "extend the release fact");
    // The hub trusts a stat signature only once it is old enough; a fresh commit is re-read at once.
    expect(await packet("alpha", key)).toEqual({ ids: ["mem_release"], gaps: [], audit: [] });
  });
});

function checksFile(result: string, command: string[] = ["false"]): string {
  const record = {
    verifiedAt: "2026-09-30T00:00:00.000Z",
    commit: null,
    command,
    result,
    exitCode: 1,
    durationMs: 4,
  };
  return `${JSON.stringify({ schema: "kxm.memory-checks.v1", facts: { release: record } }, null, 2)}\n`;
}

describe("authored facts with a check", () => {
  test("withheld as check_failed while the committed record fails; expired wins once both apply", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
        expiresAt: "2026-10-10",
        check: '\n  command: ["false"]\n  onFailure: withhold',
      }),
      ".kxm/memory/suite.md": fact("suite", "Run the release test suite before tagging"),
      ".kxm/memory-checks.json": checksFile("failed"),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    expect(await packet("alpha", key)).toEqual({
      ids: ["mem_suite"],
      gaps: ["items_withheld:check_failed:1"],
      audit: ["items_withheld:check_failed:1"],
    });
    hub.clock.set("2026-10-10T00:00:00Z");
    expect((await packet("alpha", key)).gaps).toEqual(["items_withheld:expired:1"]);
  });

  test("a record of another command, or a passing one, withholds nothing; a malformed file is a gap", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
        check: '\n  command: ["false"]\n  onFailure: withhold',
      }),
      ".kxm/memory-checks.json": checksFile("failed", ["false", "--old"]),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    expect(await packet("alpha", key)).toEqual({ ids: ["mem_release"], gaps: [], audit: [] });
    await writeFile(join(root, ".kxm/memory-checks.json"), checksFile("passed"));
    await commitAll(root, "a passing record");
    expect(await packet("alpha", key)).toEqual({ ids: ["mem_release"], gaps: [], audit: [] });
    await writeFile(join(root, ".kxm/memory-checks.json"), "{ not json");
    await commitAll(root, "a broken record");
    expect(await packet("alpha", key)).toEqual({
      ids: ["mem_release"],
      gaps: ["memory_invalid:.kxm/memory-checks.json: (file): is not valid JSON"],
      audit: ["memory_invalid:.kxm/memory-checks.json: (file): is not valid JSON"],
    });
  });
});

describe("state proposals with expiresAt and reviewBy", () => {
  test("carried through promotion: the value is due for review, then withheld", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo", "agent-a");
    const { state } = await proposeAndPromote(hub.app, key, {
      reviewBy: "2026-10-20T00:00:00Z",
      expiresAt: "2026-11-01T00:00:00Z",
    });
    expect(state.expiresAt).toBe("2026-11-01T00:00:00Z");
    expect(state.reviewBy).toBe("2026-10-20T00:00:00Z");

    expect((await packet("demo", key)).ids).toEqual([state.id]);
    hub.clock.set("2026-10-21T00:00:00Z");
    expect(await packet("demo", key)).toEqual({
      ids: [state.id],
      gaps: [`review_due:${state.id}`],
      audit: [`review_due:${state.id}`],
    });
    hub.clock.set("2026-11-01T00:00:00Z");
    const gone = ["no context records exist for this project yet", "items_withheld:expired:1"];
    expect(await packet("demo", key)).toEqual({ ids: [], gaps: gone, audit: gone });
  });

  test("refuses a proposal that has already expired, and one reviewed after it expires", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo", "agent-a");
    const past = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      expiresAt: "2026-09-01T00:00:00Z",
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().code).toBe("invalid_state_proposal");
    const inverted = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      expiresAt: "2026-12-01T00:00:00Z",
      reviewBy: "2026-12-02T00:00:00Z",
    });
    expect(inverted.statusCode).toBe(400);
    expect(inverted.json().code).toBe("invalid_state_proposal");
    const notDate = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      expiresAt: "next week",
    });
    expect(notDate.statusCode).toBe(400);
  });

  test("a proposal that expires before it is promoted cannot be promoted", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo", "agent-a");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      expiresAt: "2026-10-02T00:00:00Z",
    });
    expect(proposed.statusCode, proposed.body).toBe(201);
    hub.clock.set("2026-10-03T00:00:00Z");
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:1"] },
    );
    expect(promoted.statusCode).toBe(400);
    expect(promoted.json().code).toBe("state_proposal_not_promotable");
  });
});

describe("review_due gaps", () => {
  test("at most 16 by id, then a count of the rest, over a real loopback port", async () => {
    await hub.start();
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) {
      const id = `fact-${String(i).padStart(2, "0")}`;
      files[`.kxm/memory/${id}.md`] = fact(id, `Release branch rule number ${i}`, { reviewBy: "2026-09-01" });
    }
    const root = await gitCheckout(hub.dir, "alpha", files);
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    const address = await hub.app.listen({ host: "127.0.0.1", port: 0 });
    const response = await fetch(`${address}/v1/projects/alpha/context`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ ...REQUEST, budgetTokens: 8000 }),
    });
    expect(response.status).toBe(200);
    const { packet } = (await response.json()) as { packet: { unresolvedGaps: string[] } };
    const expected = Array.from(
      { length: 16 },
      (_, i) => `review_due:mem_fact-${String(i).padStart(2, "0")}`,
    );
    expect(packet.unresolvedGaps).toEqual([...expected, "review_due:+4 more"]);
  });
});

/** The agent's guide proposal with `extra`, promoted by the admin: the current value. */
async function promoted(project: string, key: string, extra: Record<string, string>): Promise<ContextItem> {
  const proposed = await call(hub.app, "POST", `/v1/projects/${project}/state/proposals`, key, {
    ...GUIDE_PROPOSAL,
    ...extra,
  });
  expect(proposed.statusCode, proposed.body).toBe(201);
  const promotion = await call(
    hub.app,
    "POST",
    `/v1/projects/${project}/state/proposals/${proposed.json().proposalId}/promote`,
    ADMIN_TOKEN,
    { evidenceRefs: ["review:1"] },
  );
  expect(promotion.statusCode, promotion.body).toBe(200);
  return promotion.json().state;
}

async function explain(project: string, id: string) {
  const response = await call(hub.app, "GET", `/v1/projects/${project}/items/${id}/explain`, ADMIN_TOKEN);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describe("what derives from an expired item", () => {
  test("is withheld as expired with it, and explain finds both and says why", async () => {
    await hub.start();
    const root = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
        expiresAt: "2026-10-10T12:00:00Z",
      }),
      ".kxm/memory/suite.md": fact("suite", "Run the release test suite before tagging"),
    });
    const key = await projectWithAgent(hub.app, "alpha", "agent-a", root);
    const state = await promoted("alpha", key, { expiresAt: "2026-10-05T00:00:00Z" });
    const memory = (await recall("alpha", key)).ids;
    expect(memory).toEqual([state.id, "mem_release", "mem_suite"].sort());
    // A derived item of the expiring value, and a summary of it and of the expiring fact.
    const derived = deriveContextItem(
      {
        id: "derived_release_gate",
        kind: "knowledge",
        project: "alpha",
        summary: "Tags wait for the release branch",
      },
      "evidence",
      [state],
    );
    const releaseFact: ContextItem = {
      id: "mem_release",
      kind: "knowledge",
      project: "alpha",
      summary: "Releases are cut from the release branch",
      provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
      authority: "instruction",
      confidence: "verified",
    };
    const summary = summarizeContextItems("alpha", "Release branch rules in short", [derived, releaseFact]);
    plantItems(hub.dbPath, [derived, summary], "2026-10-01T09:00:00.000Z");
    const all = [state.id, derived.id, summary.id, "mem_release", "mem_suite"].sort();
    expect(await recall("alpha", key)).toEqual({ ids: all, gaps: [] });
    expect((await explain("alpha", derived.id)).withheld).toBeUndefined();

    // The value expires: what derives from it goes with it; the summary also derives from the served fact.
    hub.clock.set("2026-10-05T00:00:00Z");
    expect(await recall("alpha", key)).toEqual({
      ids: ["mem_release", "mem_suite"],
      gaps: ["items_withheld:expired:3"],
    });
    expect((await packet("alpha", key)).ids).toEqual(["mem_release", "mem_suite"]);
    const explained = await explain("alpha", derived.id);
    expect(explained).toMatchObject({ id: derived.id, exists: true, withheld: "expired", lineageDepth: 1 });
    expect(explained.lineage).toEqual([
      { id: state.id, exists: true, sourceType: "peer", sourceRef: "promoted-by:kxm-admin" },
    ]);
    expect(await explain("alpha", state.id)).toMatchObject({
      id: state.id,
      exists: true,
      withheld: "expired",
    });

    // The fact expires too; a revocation of the summary's other ancestor wins over expiry, as everywhere.
    hub.clock.set("2026-10-10T12:00:00Z");
    expect(await recall("alpha", key)).toEqual({ ids: ["mem_suite"], gaps: ["items_withheld:expired:4"] });
    expect(await explain("alpha", "mem_release")).toMatchObject({ exists: true, withheld: "expired" });
    const revoked = await call(hub.app, "POST", "/v1/projects/alpha/revocations", ADMIN_TOKEN, {
      target: "item",
      value: derived.id,
      reason: "wrong gate",
    });
    expect(revoked.statusCode, revoked.body).toBe(201);
    expect((await recall("alpha", key)).gaps).toEqual([
      "items_withheld:revoked:2",
      "items_withheld:expired:2",
    ]);
    expect((await explain("alpha", summary.id)).withheld).toBe("revoked");
  });
});
