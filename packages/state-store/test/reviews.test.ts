import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { describe, expect, test } from "vitest";
import type { ReviewJournalInput } from "../src/index.js";
import { MIGRATIONS_FOLDER } from "../src/migrations.js";
import { rawQuery } from "./support/raw-sql.js";
import { at, ENGINE, open, T0, tempDir, tempStore } from "./support/temp-store.js";

function expectCode(error: unknown, code: string): void {
  expect(isKxmError(error) && error.code, String(error)).toBe(code);
}

async function demo() {
  const opened = await tempStore();
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
    expect(await rawQuery(file, "select cast(count(*) as integer) as n from journal_reviews")).toEqual([
      { n: 0 },
    ]);
  });
});

// SQLite's migration history: the PostgreSQL store's migrations begin with journal_reviews in place.
describe.skipIf(ENGINE === "postgres")("the journal_reviews migration", () => {
  test("upgrades a database made by the first migration alone, keeping its runs and journal", async () => {
    const dir = tempDir();
    // The committed migrations as of 0000_init only: what a hub of the previous release created.
    const old = join(dir, "drizzle-0000");
    mkdirSync(join(old, "meta"), { recursive: true });
    copyFileSync(join(MIGRATIONS_FOLDER, "0000_init.sql"), join(old, "0000_init.sql"));
    copyFileSync(
      join(MIGRATIONS_FOLDER, "meta", "0000_snapshot.json"),
      join(old, "meta", "0000_snapshot.json"),
    );
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"));
    journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag === "0000_init");
    writeFileSync(join(old, "meta", "_journal.json"), JSON.stringify(journal));
    const file = join(dir, "kxm.db");
    const raw = new Database(file);
    migrate(drizzle({ client: raw }), { migrationsFolder: old });
    raw.exec(`insert into projects (id, created_at) values ('demo', '${T0}')`);
    raw.exec(
      `insert into runs (project, id, workflow, status, started_at, finished_at) values ('demo', 'run-1', 'ci', 'succeeded', '${T0}', '${T0}')`,
    );
    const entry = {
      id: "j_000000000000000000000001",
      project: "demo",
      runId: "run-1",
      category: "decision",
      summary: "Adopt trunk-based development",
      createdAt: T0,
    };
    raw
      .prepare(
        "insert into journal_entries (id, project, run_id, category, created_at, body) values (?, 'demo', 'run-1', 'decision', ?, ?)",
      )
      .run(entry.id, T0, JSON.stringify(entry));
    expect(
      raw.prepare("select name from sqlite_master where name = 'journal_reviews'").get(),
    ).toBeUndefined();
    raw.close();

    const store = await open(file);
    const { review } = await store.reviewJournalEntry(
      { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin" },
      at(T0, 1_000),
    );
    expect(review.reviewedAt).toBe("2026-09-01T00:00:01.000Z");
    expect((await store.listReviewedJournal("demo")).map((row) => row.entry)).toEqual([entry]);
  });
});
