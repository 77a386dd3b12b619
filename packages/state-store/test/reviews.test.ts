import { isKxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import type { ReviewJournalInput } from "../src/index.js";
import { at, T0, tempStore } from "./support/temp-store.js";

function expectCode(error: unknown, code: string): void {
  expect(isKxmError(error) && error.code, String(error)).toBe(code);
}

async function demo() {
  const opened = tempStore();
  const { store } = opened;
  await store.createProject({ id: "demo" }, at(T0));
  await store.createProject({ id: "other" }, at(T0));
  await store.startRun({ project: "demo", workflow: "release", runId: "run-1" }, at(T0));
  const decision = await store.appendJournal(
    { project: "demo", runId: "run-1", category: "decision", summary: "Release from main" },
    at(T0, 1_000),
  );
  const error = await store.appendJournal(
    { project: "demo", runId: "run-1", category: "error", summary: "The build timed out" },
    at(T0, 2_000),
  );
  return { ...opened, decision, error };
}

describe("journal reviews", () => {
  test("an entry of a running run cannot be reviewed; once the run finished it can, once", async () => {
    const { store, decision } = await demo();
    const early = await store
      .reviewJournalEntry({ project: "demo", entryId: decision.id, reviewedBy: "kxm-admin" }, at(T0, 3_000))
      .catch((error: unknown) => error);
    expectCode(early, "journal_review_invalid");
    expect(await store.listReviewedJournal("demo")).toEqual([]);

    await store.finishRun({ project: "demo", runId: "run-1", outcome: "succeeded" }, at(T0, 4_000));
    const first = await store.reviewJournalEntry(
      { project: "demo", entryId: decision.id, reviewedBy: "kxm-admin", evidenceRefs: ["review:pr-12"] },
      at(T0, 5_000),
    );
    expect(first).toEqual({
      created: true,
      review: {
        entryId: decision.id,
        project: "demo",
        reviewedBy: "kxm-admin",
        reviewedAt: "2026-09-01T00:00:05.000Z",
        evidenceRefs: ["review:pr-12"],
      },
    });
    const again = await store.reviewJournalEntry(
      { project: "demo", entryId: decision.id, reviewedBy: "someone-else" },
      at(T0, 6_000),
    );
    expect(again).toEqual({ created: false, review: first.review });

    const listed = await store.listReviewedJournal("demo");
    expect(listed).toEqual([
      {
        entry: decision,
        run: expect.objectContaining({ id: "run-1", status: "succeeded" }),
        review: first.review,
      },
    ]);
  });

  test("another project's entry, or an unknown one, is not_found; malformed input is invalid_request", async () => {
    const { store, decision } = await demo();
    await store.finishRun({ project: "demo", runId: "run-1", outcome: "failed" }, at(T0, 4_000));
    for (const [input, code] of [
      [{ project: "other", entryId: decision.id, reviewedBy: "kxm-admin" }, "not_found"],
      [{ project: "demo", entryId: "j_missing", reviewedBy: "kxm-admin" }, "not_found"],
      [{ project: "demo", entryId: "has space", reviewedBy: "kxm-admin" }, "invalid_request"],
      [{ project: "demo", entryId: decision.id, reviewedBy: "" }, "invalid_request"],
      [
        { project: "demo", entryId: decision.id, reviewedBy: "a", evidenceRefs: ["x", "x"] },
        "invalid_request",
      ],
    ] as Array<[ReviewJournalInput, string]>) {
      const error = await store.reviewJournalEntry(input, at(T0, 5_000)).catch((e: unknown) => e);
      expectCode(error, code);
    }
    expect(await store.listReviewedJournal("other")).toEqual([]);
    expect(await store.listReviewedJournal("demo")).toEqual([]);
  });

  test("purging the finished run removes its entries' reviews", async () => {
    const { store, decision, error, file } = await demo();
    await store.finishRun({ project: "demo", runId: "run-1", outcome: "succeeded" }, at(T0, 4_000));
    for (const entry of [error, decision]) {
      await store.reviewJournalEntry(
        { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin" },
        at(T0, 5_000),
      );
    }
    expect((await store.listReviewedJournal("demo")).map((row) => row.entry.id)).toEqual([
      decision.id,
      error.id,
    ]);
    const counts = await store.purge(at(T0, 91 * 86_400_000), 90);
    expect(counts.journal).toBe(2);
    expect(await store.listReviewedJournal("demo")).toEqual([]);
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.prepare("select count(*) as n from journal_reviews").get()).toEqual({ n: 0 });
    } finally {
      raw.close();
    }
  });
});
