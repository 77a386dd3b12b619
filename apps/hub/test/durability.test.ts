import { describe, expect, test } from "vitest";
import { startRun } from "./fixtures.js";
import { ADMIN_TOKEN, call, GUIDE_PROPOSAL, hubPerTest, projectWithAgent } from "./helpers.js";

const hub = hubPerTest();

describe("concurrent promotions", () => {
  test("parallel promotions of one key leave exactly one current value, and reading it never answers 409", async () => {
    await hub.start({ now: () => new Date() });
    const key = await projectWithAgent(hub.app, "demo");
    const proposals: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
        ...GUIDE_PROPOSAL,
        summary: `Releases are cut from branch ${i}`,
      });
      expect(proposed.statusCode).toBe(201);
      proposals.push(proposed.json().proposalId);
    }
    const promotions = proposals.map((id) =>
      call(hub.app, "POST", `/v1/projects/demo/state/proposals/${id}/promote`, ADMIN_TOKEN, {
        evidenceRefs: [`review:${id}`],
      }),
    );
    const reads = Array.from({ length: 40 }, () =>
      call(hub.app, "GET", "/v1/projects/demo/state/release.branch", key),
    );
    const packets = Array.from({ length: 10 }, () =>
      call(hub.app, "POST", "/v1/projects/demo/context", key, { role: "planner", task: "release branch" }),
    );
    const [promoted, read, assembled] = await Promise.all([
      Promise.all(promotions),
      Promise.all(reads),
      Promise.all(packets),
    ]);
    expect(promoted.map((response) => response.statusCode)).toEqual(proposals.map(() => 200));
    for (const response of read) expect([200, 404]).toContain(response.statusCode);
    for (const response of assembled) expect(response.statusCode).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const history = (await call(hub.app, "GET", "/v1/projects/demo/state/release.branch/history", key)).json()
      .items;
    const current = history.filter((item: { status: string }) => item.status === "current");
    expect(current).toHaveLength(1);
    const now = await call(hub.app, "GET", "/v1/projects/demo/state/release.branch", key);
    expect(now.statusCode).toBe(200);
    expect(now.json().state.id).toBe(current[0].id);
    // The packet, served from the index kept up to date write by write, holds that one value and no contradiction.
    const packet = (
      await call(hub.app, "POST", "/v1/projects/demo/context", key, {
        role: "planner",
        task: "release branch",
      })
    ).json().packet;
    expect(packet.currentState.map((item: { id: string }) => item.id)).toEqual([current[0].id]);
    expect(packet.contradictions).toEqual([]);
    const contradictions = (await call(hub.app, "GET", "/v1/projects/demo/contradictions", key)).json();
    expect(contradictions).toEqual({ state: [], journal: [] });
  });
});

describe("a restart", () => {
  test("closing the app and store and reopening the same file keeps every acknowledged write", async () => {
    await hub.start();
    const key = await projectWithAgent(hub.app, "demo");
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, GUIDE_PROPOSAL);
    hub.clock.advance(60_000);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:pr-12"] },
    );
    expect(promoted.statusCode).toBe(200);
    const pending = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      key: "deploy.window",
      summary: "Deploys happen on Tuesdays",
    });
    const runId = await startRun(hub.app, "demo");
    const journal = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
      category: "error",
      summary: "The integration suite timed out",
      stage: "verify",
    });
    expect(journal.statusCode).toBe(201);
    const finished = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/finish`, key, {
      outcome: "failed",
      failingStep: "verify",
      lessons: ["Raise the suite timeout"],
    });
    expect(finished.statusCode).toBe(200);
    hub.clock.advance(60_000);

    const snapshot = async () => ({
      projects: (await call(hub.app, "GET", "/v1/projects", ADMIN_TOKEN)).json(),
      state: (await call(hub.app, "GET", "/v1/projects/demo/state/release.branch", key)).json(),
      history: (await call(hub.app, "GET", "/v1/projects/demo/state/deploy.window/history", key)).json(),
      episodes: (await call(hub.app, "GET", "/v1/projects/demo/episodes", key)).json(),
      packet: (
        await call(hub.app, "POST", "/v1/projects/demo/context", key, {
          role: "repro",
          task: "suite timeout",
        })
      ).json(),
    });
    const before = await snapshot();
    expect(before.history.items.map((item: { id: string }) => item.id)).toEqual([pending.json().proposalId]);
    expect(before.episodes.items).toHaveLength(1);

    await hub.close();
    await hub.reopen();
    const after = await snapshot();
    expect(after).toEqual(before);
    expect(after.packet.audit.selectedIds).toContain(`journal_${journal.json().entry.id}`);
  });
});
