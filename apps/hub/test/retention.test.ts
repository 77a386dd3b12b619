import { afterEach, describe, expect, test } from "vitest";
import { purgeExpired } from "../src/index.js";
import { startRun } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  projectWithAgent,
  type TestHub,
} from "./helpers.js";

const DAY = 86_400_000;
let hub: TestHub;
afterEach(async () => {
  await hub.dispose();
});

/** Two promotions of one key (the first value superseded) and a finished run with a journal entry. */
async function history(key: string) {
  const promote = async (summary: string) => {
    const proposed = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      summary,
    });
    hub.clock.advance(1_000);
    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${proposed.json().proposalId}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["review:1"] },
    );
    return promoted.json().state.id as string;
  };
  const first = await promote("Releases are cut from the main branch");
  const firstCurrentAt = new Date(hub.clock.now().getTime() + 500).toISOString();
  hub.clock.advance(1_000);
  const second = await promote("Releases are cut from the release branch");
  const runId = await startRun(hub.app, "demo");
  const entry = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
    category: "error",
    summary: "The release branch build failed",
  });
  await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/finish`, key, { outcome: "failed" });
  hub.clock.advance(1_000);
  return { first, second, firstCurrentAt, journalId: `journal_${entry.json().entry.id}` };
}

describe("retention", () => {
  test("purges superseded state and terminal runs after the retention period, and the packets follow", async () => {
    hub = await createTestHub({ retentionDays: 90 });
    const start = hub.clock.now().getTime();
    const key = await projectWithAgent(hub.app, "demo");
    const { first, second, firstCurrentAt, journalId } = await history(key);
    const repro = async () =>
      (
        await call(hub.app, "POST", "/v1/projects/demo/context", key, {
          role: "repro",
          task: "release branch build",
        })
      ).json();
    const historyIds = async () =>
      (await call(hub.app, "GET", "/v1/projects/demo/state/release.branch/history", key))
        .json()
        .items.map((item: { id: string }) => item.id);

    expect((await repro()).audit.selectedIds).toContain(journalId);
    expect(await historyIds()).toContain(first);

    hub.clock.set(new Date(start + 89 * DAY).toISOString());
    expect(await purgeExpired(hub.app)).toEqual({ items: 0, runs: 0, journal: 0, packets: 0 });
    const asOf = await call(
      hub.app,
      "GET",
      `/v1/projects/demo/state/release.branch?asOf=${firstCurrentAt}`,
      key,
    );
    expect(asOf.json().state.id).toBe(first);

    hub.clock.set(new Date(start + 91 * DAY).toISOString());
    const counts = await purgeExpired(hub.app);
    expect(counts.runs).toBe(1);
    expect(counts.journal).toBe(1);
    expect(counts.items).toBeGreaterThanOrEqual(3);
    expect(await historyIds()).toEqual([second]);
    const gone = await call(
      hub.app,
      "GET",
      `/v1/projects/demo/state/release.branch?asOf=${firstCurrentAt}`,
      key,
    );
    expect([gone.statusCode, gone.json().code]).toEqual([404, "not_found"]);
    const after = await repro();
    expect(after.audit.selectedIds).not.toContain(journalId);
    expect(after.packet.episodes).toEqual([]);
    expect((await call(hub.app, "GET", "/v1/projects/demo/episodes", key)).json().items).toEqual([]);
    const purges = hub.logs.filter((line) => line.event === "retention_purge");
    expect(purges.at(-1)).toMatchObject({ level: 30, runs: 1, journal: 1, poolsRebuilt: 1 });
    const now = await call(hub.app, "GET", "/v1/projects/demo/state/release.branch", key);
    expect(now.json().state.id).toBe(second);
  });

  test("the retention period is configurable", async () => {
    hub = await createTestHub({ retentionDays: 7 });
    const start = hub.clock.now().getTime();
    const key = await projectWithAgent(hub.app, "demo");
    await history(key);
    hub.clock.set(new Date(start + 6 * DAY).toISOString());
    expect((await purgeExpired(hub.app)).runs).toBe(0);
    hub.clock.set(new Date(start + 8 * DAY).toISOString());
    expect((await purgeExpired(hub.app)).runs).toBe(1);
  });
});
