import { describe, expect, test } from "vitest";
import { DEFAULT_RETENTION_DAYS } from "../src/index.js";
import { guideProposal, proposeAndPromote } from "./support/state-fixtures.js";
import { at, T0, tempStore } from "./support/temp-store.js";

const DAY = 86_400_000;
const RETENTION = DEFAULT_RETENTION_DAYS * DAY;

async function demoStore() {
  const opened = await tempStore();
  await opened.store.createProject({ id: "demo" }, at(T0));
  return opened;
}

describe("retention", () => {
  test("the default keeps 90 days", () => {
    expect(DEFAULT_RETENTION_DAYS).toBe(90);
  });

  test("superseded state and closed proposals: kept at exactly 90 days after validUntil, purged 1 ms later", async () => {
    const { store } = await demoStore();
    const a = await proposeAndPromote(store, "k", "A", at(T0, 1000));
    const b = await proposeAndPromote(store, "k", "B", at(T0, 10 * DAY));
    const pending = await store.proposeState(
      guideProposal({ key: "k", summary: "P", proposedBy: "agent-2" }),
      at(T0, 11 * DAY),
    );
    const ended = Date.parse(b.superseded[0]!.validUntil!);
    expect(ended).toBe(Date.parse(T0) + 10 * DAY);
    expect(await store.currentState("demo", "k", at(T0, 5 * DAY))).toEqual([b.superseded[0]]);

    // A's proposal closed at T0 + 1 s, so it is the only item more than 90 days past its end.
    expect(await store.purge(new Date(ended + RETENTION), DEFAULT_RETENTION_DAYS)).toEqual({
      items: 1,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    expect(await store.getItem("demo", a.consumed.id)).toBeUndefined();
    expect(await store.currentState("demo", "k", at(T0, 5 * DAY))).toEqual([b.superseded[0]]);

    expect(await store.purge(new Date(ended + RETENTION + 1), DEFAULT_RETENTION_DAYS)).toEqual({
      items: 2,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    // As-of before the purge horizon now finds nothing; the current value and the open proposal stay.
    expect(await store.currentState("demo", "k", at(T0, 5 * DAY))).toEqual([]);
    expect(await store.currentState("demo", "k", new Date(ended + RETENTION))).toEqual([b.state]);
    expect(await store.stateHistory("demo", "k")).toEqual([b.state, pending]);
    expect(await store.purge(new Date(ended + 10 * RETENTION), DEFAULT_RETENTION_DAYS)).toEqual({
      items: 0,
      runs: 0,
      journal: 0,
      packets: 0,
    });
  });

  test("terminal runs go with their journal and episode; running runs stay whatever their age", async () => {
    const { store } = await demoStore();
    await store.createProject({ id: "other" }, at(T0));
    for (const [project, runId] of [
      ["demo", "old"],
      ["demo", "running"],
      ["demo", "newer"],
      ["other", "old"],
    ] as const) {
      await store.startRun({ project, workflow: "ci", runId }, at(T0));
      await store.appendJournal({ project, runId, category: "observation", summary: "one" }, at(T0, 1));
      await store.appendJournal({ project, runId, category: "error", summary: "two" }, at(T0, 2));
    }
    const finished = Date.parse(T0) + 1000;
    await store.finishRun({ project: "demo", runId: "old", outcome: "failed" }, new Date(finished));
    await store.finishRun({ project: "other", runId: "old", outcome: "succeeded" }, new Date(finished));
    await store.finishRun({ project: "demo", runId: "newer", outcome: "cancelled" }, new Date(finished + 1));

    expect(await store.purge(new Date(finished + RETENTION), DEFAULT_RETENTION_DAYS)).toEqual({
      items: 0,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    expect(await store.purge(new Date(finished + RETENTION + 1), DEFAULT_RETENTION_DAYS)).toEqual({
      items: 2,
      runs: 2,
      journal: 4,
      packets: 0,
    });
    expect(await store.getRun("demo", "old")).toBeUndefined();
    expect(await store.getItem("demo", "episode_old")).toBeUndefined();
    expect(await store.getRun("other", "old")).toBeUndefined();
    expect((await store.getRun("demo", "running"))?.status).toBe("running");
    expect((await store.getRun("demo", "newer"))?.status).toBe("cancelled");
    expect((await store.listJournal("demo")).map((entry) => entry.runId).sort()).toEqual([
      "newer",
      "newer",
      "running",
      "running",
    ]);
    expect((await store.listEpisodes("demo", { limit: 10 })).items.map((item) => item.id)).toEqual([
      "episode_newer",
    ]);
  });

  test("the period is configurable; 0 days purges everything that has ended", async () => {
    const { store } = await demoStore();
    await proposeAndPromote(store, "k", "A", at(T0, 1000));
    const b = await proposeAndPromote(store, "k", "B", at(T0, 2000));
    // A's proposal closed at 1 000 ms; A itself and B's proposal at 2 000 ms.
    expect(await store.purge(at(T0, 1000 + 7 * DAY), 7)).toEqual({
      items: 0,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    expect(await store.purge(at(T0, 1001 + 7 * DAY), 7)).toEqual({
      items: 1,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    expect(await store.purge(at(T0, 2000), 0)).toEqual({ items: 0, runs: 0, journal: 0, packets: 0 });
    expect(await store.purge(at(T0, 2001), 0)).toEqual({ items: 2, runs: 0, journal: 0, packets: 0 });
    expect(await store.liveItems("demo")).toEqual([b.state]);
  });

  test("a negative or non-finite period, or an invalid now, is invalid_request", async () => {
    const { store } = await demoStore();
    for (const days of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.purge(at(T0), days)).rejects.toMatchObject({ code: "invalid_request" });
    }
    await expect(store.purge(new Date(Number.NaN), 90)).rejects.toMatchObject({ code: "invalid_request" });
    expect(await store.purge(at(T0), 10_000_000)).toEqual({ items: 0, runs: 0, journal: 0, packets: 0 });
  });
});
