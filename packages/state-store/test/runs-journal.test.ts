import { JOURNAL_CATEGORIES } from "@kxm/contract";
import { journalEntryToItem } from "@kxm/provenance";
import { describe, expect, test } from "vitest";
import { at, T0, tempStore } from "./support/temp-store.js";

async function demoStore() {
  const opened = await tempStore();
  await opened.store.createProject({ id: "demo" }, at(T0));
  await opened.store.createProject({ id: "other" }, at(T0));
  return opened;
}

describe("runs", () => {
  test("a run starts running and finishes with one episode", async () => {
    const { store } = await demoStore();
    const run = await store.startRun({ project: "demo", workflow: "release-check", runId: "run-7" }, at(T0));
    expect(run).toEqual({
      id: "run-7",
      project: "demo",
      workflow: "release-check",
      status: "running",
      startedAt: "2026-09-01T00:00:00.000Z",
    });
    const { run: finished, episode } = await store.finishRun(
      {
        project: "demo",
        runId: "run-7",
        outcome: "failed",
        failingStep: "verify",
        lessons: ["Pin the Playwright version", "Retry flaky gates once"],
      },
      at(T0, 60_000),
    );
    expect(finished).toEqual({
      ...run,
      status: "failed",
      finishedAt: "2026-09-01T00:01:00.000Z",
      failingStep: "verify",
      lessons: ["Pin the Playwright version", "Retry flaky gates once"],
    });
    expect(episode).toEqual({
      id: "episode_run-7",
      kind: "episode",
      project: "demo",
      summary:
        "Run run-7 of release-check failed; failing step verify; lessons: Pin the Playwright version; Retry flaky gates once",
      provenance: { sourceType: "workflow", sourceRef: "run:run-7" },
      authority: "evidence",
      confidence: "probable",
      observedAt: "2026-09-01T00:01:00.000Z",
    });
    expect(await store.getRun("demo", "run-7")).toEqual(finished);
    expect(await store.getItem("demo", "episode_run-7")).toEqual(episode);
    expect(await store.getRun("other", "run-7")).toBeUndefined();
  });

  test("a generated run id is run_ + 24 hex; a succeeded run's episode has no step or lessons", async () => {
    const { store } = await demoStore();
    const run = await store.startRun({ project: "demo", workflow: "ci" }, at(T0));
    expect(run.id).toMatch(/^run_[0-9a-f]{24}$/);
    const { episode } = await store.finishRun(
      { project: "demo", runId: run.id, outcome: "succeeded" },
      at(T0, 1),
    );
    expect(episode.summary).toBe(`Run ${run.id} of ci succeeded`);
  });

  test("finishing twice is invalid_request; an unknown run, or another project's, is not_found", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    await store.finishRun({ project: "demo", runId: "r1", outcome: "cancelled" }, at(T0, 1));
    await expect(
      store.finishRun({ project: "demo", runId: "r1", outcome: "succeeded" }, at(T0, 2)),
    ).rejects.toMatchObject({ code: "invalid_request", status: 400 });
    await expect(
      store.finishRun({ project: "demo", runId: "r2", outcome: "failed" }, at(T0, 2)),
    ).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
    await expect(
      store.finishRun({ project: "other", runId: "r1", outcome: "failed" }, at(T0, 2)),
    ).rejects.toMatchObject({ code: "not_found" });
    expect((await store.getRun("demo", "r1"))?.status).toBe("cancelled");
  });

  test("start refusals: unknown project, duplicate id, malformed id, bad outcome", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    await expect(store.startRun({ project: "missing", workflow: "ci" }, at(T0))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0)),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(
      store.startRun({ project: "demo", workflow: "ci", runId: "a b" }, at(T0)),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(
      store.startRun({ project: "demo", workflow: "ci", runId: "r".repeat(121) }, at(T0)),
    ).rejects.toMatchObject({ code: "context_limits_exceeded" });
    await expect(store.startRun({ project: "demo", workflow: " " }, at(T0))).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(
      store.finishRun({ project: "demo", runId: "r1", outcome: "done" as "failed" }, at(T0, 1)),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect((await store.getRun("demo", "r1"))?.status).toBe("running");
  });

  test("an episode summary is redacted and cut to 4,000 characters", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    const secret = `sk-${"A1b2C3d4".repeat(6)}`;
    const { run, episode } = await store.finishRun(
      { project: "demo", runId: "r1", outcome: "failed", lessons: [`token ${secret}`, "x".repeat(3990)] },
      at(T0, 1),
    );
    expect(run.lessons?.[0]).toBe("token [redacted]");
    expect(episode.summary).not.toContain(secret);
    expect(episode.summary.length).toBe(4000);
    expect(episode.summary.endsWith("…")).toBe(true);
  });
});

describe("journal", () => {
  test("entries are stored as given, redacted, and map to items through journalEntryToItem", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    const entry = await store.appendJournal(
      {
        project: "demo",
        runId: "r1",
        category: "lesson",
        stage: "verify",
        summary: `  Retry once; key ghp_${"a1B2".repeat(9)}  `,
        evidenceRefs: ["ci:log-1"],
      },
      at(T0, 10),
    );
    expect(entry).toEqual({
      id: entry.id,
      project: "demo",
      runId: "r1",
      stage: "verify",
      category: "lesson",
      summary: "Retry once; key [redacted]",
      evidenceRefs: ["ci:log-1"],
      createdAt: "2026-09-01T00:00:00.010Z",
    });
    expect(entry.id).toMatch(/^j_[0-9a-f]{24}$/);
    expect(await store.listJournal("demo")).toEqual([entry]);
    expect(journalEntryToItem(entry).kind).toBe("knowledge");
    // A token in the stage is redacted too: the stage is stored, filtered on and shown.
    const staged = await store.appendJournal(
      {
        project: "demo",
        runId: "r1",
        category: "observation",
        stage: `deploy-ghp_${"c3D4".repeat(9)}`,
        summary: "ok",
      },
      at(T0, 20),
    );
    expect(staged.stage).toBe("deploy-[redacted]");
    expect((await store.listJournal("demo")).map((e) => e.stage)).toEqual(["verify", "deploy-[redacted]"]);
  });

  test("lesson and skill-candidate need evidence (journal_evidence_required 400); others do not", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    for (const category of ["lesson", "skill-candidate"] as const) {
      for (const evidenceRefs of [undefined, []]) {
        await expect(
          store.appendJournal({ project: "demo", runId: "r1", category, summary: "s", evidenceRefs }, at(T0)),
        ).rejects.toMatchObject({ code: "journal_evidence_required", status: 400 });
      }
    }
    for (const category of JOURNAL_CATEGORIES.filter((c) => c !== "lesson" && c !== "skill-candidate")) {
      await store.appendJournal({ project: "demo", runId: "r1", category, summary: category }, at(T0));
    }
    expect((await store.listJournal("demo")).length).toBe(JOURNAL_CATEGORIES.length - 2);
  });

  test("refusals: unknown run (404), finished run, bad category, empty summary", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    const append = (overrides: Record<string, unknown>) =>
      store.appendJournal(
        { project: "demo", runId: "r1", category: "observation", summary: "s", ...overrides },
        at(T0),
      );
    await expect(append({ runId: "nope" })).rejects.toMatchObject({ code: "not_found", status: 404 });
    await expect(append({ project: "other" })).rejects.toMatchObject({ code: "not_found" });
    await expect(append({ category: "gossip" })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(append({ summary: "  " })).rejects.toMatchObject({ code: "invalid_request" });
    await expect(append({ stage: "s".repeat(65) })).rejects.toMatchObject({
      code: "context_limits_exceeded",
    });
    await store.finishRun({ project: "demo", runId: "r1", outcome: "succeeded" }, at(T0, 1));
    await expect(append({})).rejects.toMatchObject({ code: "invalid_request" });
    expect(await store.listJournal("demo")).toEqual([]);
  });

  test("filters by run, stage and categories combine; order is createdAt then id", async () => {
    const { store } = await demoStore();
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0));
    await store.startRun({ project: "demo", workflow: "ci", runId: "r2" }, at(T0));
    const add = (runId: string, stage: string, category: "plan" | "error", ms: number) =>
      store.appendJournal(
        { project: "demo", runId, stage, category, summary: `${runId} ${stage} ${category}` },
        at(T0, ms),
      );
    const e1 = await add("r1", "plan", "plan", 30);
    const e2 = await add("r1", "build", "error", 10);
    const e3 = await add("r2", "build", "error", 20);
    const e4 = await add("r2", "plan", "plan", 20);
    const tie = [e3, e4].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(await store.listJournal("demo")).toEqual([e2, ...tie, e1]);
    expect(await store.listJournal("demo", { runId: "r1" })).toEqual([e2, e1]);
    expect(await store.listJournal("demo", { stage: "build" })).toEqual([e2, e3]);
    expect(await store.listJournal("demo", { categories: ["plan"] })).toEqual([e4, e1]);
    expect(
      await store.listJournal("demo", { runId: "r2", stage: "build", categories: ["error", "plan"] }),
    ).toEqual([e3]);
    expect(await store.listJournal("demo", { categories: [] })).toEqual([]);
    expect(await store.listJournal("other")).toEqual([]);
  });
});

describe("episodes", () => {
  test("one per finished run, newest first, paged with a cursor", async () => {
    const { store } = await demoStore();
    const episodes = [];
    for (let i = 0; i < 7; i++) {
      await store.startRun({ project: "demo", workflow: "ci", runId: `r${i}` }, at(T0, i * 1000));
      // Runs 5 and 6 finish in the same millisecond: the id breaks the tie.
      const finishAt = at(T0, Math.min(i, 5) * 1000 + 500);
      episodes.push(
        (await store.finishRun({ project: "demo", runId: `r${i}`, outcome: "succeeded" }, finishAt)).episode,
      );
    }
    await store.startRun({ project: "demo", workflow: "ci", runId: "still-running" }, at(T0));
    const newestFirst = [
      episodes[6],
      episodes[5],
      episodes[4],
      episodes[3],
      episodes[2],
      episodes[1],
      episodes[0],
    ];
    const seen = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await store.listEpisodes("demo", {
        limit: 3,
        ...(before === undefined ? {} : { before }),
      });
      seen.push(...page.items);
      before = page.nextCursor;
      pages++;
    } while (before !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);
    expect((await store.listEpisodes("demo", { limit: 50 })).items).toEqual(newestFirst);
    expect(await store.listEpisodes("demo", { limit: 7 })).toEqual({ items: newestFirst });
    expect(await store.listEpisodes("demo", { limit: 5, runId: "r2" })).toEqual({ items: [episodes[2]] });
    expect(await store.listEpisodes("other", { limit: 5 })).toEqual({ items: [] });
  });

  test("limits outside 1..50 and foreign cursors are invalid_request", async () => {
    const { store } = await demoStore();
    for (const limit of [0, 51, 1.5, Number.NaN]) {
      await expect(store.listEpisodes("demo", { limit })).rejects.toMatchObject({ code: "invalid_request" });
    }
    for (const before of ["nope", Buffer.from("[1,2]").toString("base64url"), ""]) {
      await expect(store.listEpisodes("demo", { limit: 5, before })).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
  });
});
