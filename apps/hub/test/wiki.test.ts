import { WikiRecordsSchema } from "@kxm/contract";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { finishedEntry, startRun } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  gitCheckout,
  memoryFact,
  projectWithAgent,
  type TestHub,
} from "./helpers.js";

// The review step and the wiki's records route, against a real store file: only reviewed records come back, never
// a pending proposal, an unreviewed entry or another project's records.

describe("journal review and the wiki's records", () => {
  let hub: TestHub;
  let alphaKey: string;
  let betaKey: string;
  beforeAll(async () => {
    hub = await createTestHub();
    const alpha = await gitCheckout(hub.dir, "alpha", {
      ".kxm/memory/test-runner.md": memoryFact("test-runner", "Run npm test before every commit"),
    });
    const beta = await gitCheckout(hub.dir, "beta", {
      ".kxm/memory/beta-secret.md": memoryFact("beta-only", "Beta deploys on Tuesdays"),
    });
    alphaKey = await projectWithAgent(hub.app, "alpha", "agent-planner", alpha);
    betaKey = await projectWithAgent(hub.app, "beta", "agent-planner", beta);
  });
  afterAll(async () => {
    await hub.dispose();
  });

  async function records(project: string, token: string = ADMIN_TOKEN) {
    const response = await call(hub.app, "GET", `/v1/projects/${project}/wiki/records`, token);
    expect(response.statusCode, response.body).toBe(200);
    return WikiRecordsSchema.parse(response.json());
  }

  test("state: current and superseded values only, never a pending or consumed proposal", async () => {
    const first = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alphaKey, GUIDE_PROPOSAL);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/state/proposals/${first.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:pr-12"] },
    );
    hub.clock.advance(60_000);
    const second = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alphaKey, {
      ...GUIDE_PROPOSAL,
      summary: "Releases are cut from release branches",
    });
    await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/state/proposals/${second.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:pr-13"] },
    );
    hub.clock.advance(60_000);
    const pending = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alphaKey, {
      ...GUIDE_PROPOSAL,
      summary: "Pending: releases are cut from tags",
    });
    const got = await records("alpha");
    expect(got.state.map((item) => [item.summary, item.status])).toEqual(
      expect.arrayContaining([
        ["Releases are cut from the main branch", "superseded"],
        ["Releases are cut from release branches", "current"],
      ]),
    );
    expect(got.state).toHaveLength(2);
    const ids = JSON.stringify(got);
    expect(ids).not.toContain(pending.json().proposalId);
    expect(ids).not.toContain(first.json().proposalId);
    expect(ids).not.toContain("Pending: releases are cut from tags");
    const superseded = got.state.find((item) => item.status === "superseded")!;
    expect(superseded.id).toBe(promoted.json().state.id);
    expect(superseded.validUntil).toBeDefined();
  });

  test("journal: only reviewed entries of finished runs, with their run and review", async () => {
    const reviewedId = await finishedEntry(hub.app, "alpha", "decision", "Adopt trunk-based development");
    const unreviewed = await finishedEntry(hub.app, "alpha", "error", "The nightly build broke");
    const runId = await startRun(hub.app, "alpha");
    const running = await call(hub.app, "POST", `/v1/projects/alpha/runs/${runId}/journal`, ADMIN_TOKEN, {
      category: "plan",
      summary: "A plan of a run still running",
    });

    const refused = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/journal/${running.json().entry.id}/review`,
      ADMIN_TOKEN,
      {},
    );
    expect([refused.statusCode, refused.json().code]).toEqual([409, "journal_review_invalid"]);

    const review = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/journal/${reviewedId}/review`,
      ADMIN_TOKEN,
      {
        evidenceRefs: ["review:pr-14"],
      },
    );
    expect(review.statusCode).toBe(200);
    expect(review.json()).toEqual({
      created: true,
      review: {
        entryId: reviewedId,
        project: "alpha",
        reviewedBy: "kxm-admin",
        reviewedAt: hub.clock.now().toISOString(),
        evidenceRefs: ["review:pr-14"],
      },
    });
    const again = await call(
      hub.app,
      "POST",
      `/v1/projects/alpha/journal/${reviewedId}/review`,
      ADMIN_TOKEN,
      {},
    );
    expect(again.json()).toEqual({ ...review.json(), created: false });

    // Another project's admin path cannot review it, and beta never sees it.
    const crossed = await call(
      hub.app,
      "POST",
      `/v1/projects/beta/journal/${reviewedId}/review`,
      ADMIN_TOKEN,
      {},
    );
    expect([crossed.statusCode, crossed.json().code]).toEqual([404, "not_found"]);

    const got = await records("alpha", alphaKey);
    expect(got.journal.map((row) => row.entry.id)).toEqual([reviewedId]);
    expect(got.journal[0]!.run.status).toBe("succeeded");
    expect(got.journal[0]!.review.reviewedBy).toBe("kxm-admin");
    const text = JSON.stringify(got);
    expect(text).not.toContain(unreviewed);
    expect(text).not.toContain("A plan of a run still running");
    expect(hub.logs.some((line) => line.event === "journal_reviewed" && line.entryId === reviewedId)).toBe(
      true,
    );
  });

  test("memory and skills come from the project's own checkout; another project's never appear", async () => {
    const alpha = await records("alpha");
    expect(alpha.memory.map((item) => item.id)).toEqual(["mem_test-runner"]);
    const beta = await records("beta", betaKey);
    expect(beta.memory.map((item) => item.id)).toEqual(["mem_beta-only"]);
    expect(beta.state).toEqual([]);
    expect(beta.journal).toEqual([]);
    expect(JSON.stringify(beta)).not.toContain("alpha");
    const forbidden = await call(hub.app, "GET", "/v1/projects/beta/wiki/records", alphaKey);
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, "context_isolation_violation"]);
  });

  test("open contradictions are listed by id, pending proposals included, without their content", async () => {
    const a = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alphaKey, {
      ...GUIDE_PROPOSAL,
      key: "deploy.day",
      summary: "Deploy on Mondays",
    });
    const b = await call(hub.app, "POST", "/v1/projects/alpha/state/proposals", alphaKey, {
      ...GUIDE_PROPOSAL,
      key: "deploy.day",
      summary: "Deploy on Fridays",
    });
    const got = await records("alpha");
    const contradiction = got.contradictions.state.find((entry) => entry.stateKey === "deploy.day");
    expect([...(contradiction?.itemIds ?? [])].sort()).toEqual(
      [a.json().proposalId, b.json().proposalId].sort(),
    );
    expect(JSON.stringify(got)).not.toContain("Deploy on Mondays");
  });
});
