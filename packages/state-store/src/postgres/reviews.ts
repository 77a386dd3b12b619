// Journal reviews on PostgreSQL: the same reviews, order and errors as `../sqlite/reviews.ts`.
import { type JournalReview, KxmError, LIMITS, type ReviewedJournalEntry } from "@kxm/contract";
import { redactRefs } from "@kxm/provenance";
import { and, asc, eq, ne } from "drizzle-orm";
import { projectId, recordId, refList } from "../input.js";
import { isoTime } from "../time.js";
import type { ReviewJournalInput } from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, writeTx } from "./db.js";
import { getRun, toRun } from "./runs.js";
import { journalEntries, journalReviews, runs } from "./schema.js";

function toReview(row: typeof journalReviews.$inferSelect): JournalReview {
  const review: JournalReview = {
    entryId: row.entryId,
    project: row.project,
    reviewedBy: row.reviewedBy,
    reviewedAt: row.reviewedAt,
  };
  if (row.evidenceRefs !== null && row.evidenceRefs.length > 0) review.evidenceRefs = row.evidenceRefs;
  return review;
}

/**
 * Marks a journal entry of a finished run reviewed, in one transaction. An entry that is not in the project is 404
 * `not_found`; an entry of a run still running is 409 `journal_review_invalid`. Reviewing an entry again answers
 * the first review unchanged, with `created: false`.
 */
export async function reviewJournalEntry(
  db: Pg,
  input: ReviewJournalInput,
  now: Date,
): Promise<{ review: JournalReview; created: boolean }> {
  const project = projectId(input.project);
  const entryId = recordId(input.entryId, "entryId", "invalid_request");
  const reviewedBy = recordId(input.reviewedBy, "reviewedBy", "invalid_request");
  const evidenceRefs =
    input.evidenceRefs === undefined
      ? []
      : redactRefs(refList(input.evidenceRefs, "evidenceRefs", "invalid_request", 0, LIMITS.maxRefs));
  const reviewedAt = isoTime(now, "now");
  return writeTx(db, async (tx) => {
    const [entry] = await tx
      .select({ runId: journalEntries.runId })
      .from(journalEntries)
      .where(and(eq(journalEntries.project, project), eq(journalEntries.id, entryId)));
    if (entry === undefined) {
      throw new KxmError("not_found", `no journal entry ${entryId} in project ${project}`);
    }
    const [existing] = await tx.select().from(journalReviews).where(eq(journalReviews.entryId, entryId));
    if (existing !== undefined) return { review: toReview(existing), created: false };
    const run = await getRun(tx, project, entry.runId);
    if (run === undefined || run.status === "running") {
      throw new KxmError(
        "journal_review_invalid",
        `run ${entry.runId} has not finished; finish it before reviewing its journal entry ${entryId}`,
      );
    }
    const row = {
      entryId,
      project,
      reviewedBy,
      reviewedAt,
      evidenceRefs: evidenceRefs.length === 0 ? null : evidenceRefs,
    };
    await tx.insert(journalReviews).values(row);
    await appendChange(tx, project, "review", [entryId], reviewedAt);
    return { review: toReview(row), created: true };
  });
}

/** The project's reviewed journal entries of finished runs, with their run and review, by createdAt then id. */
export async function listReviewedJournal(db: Pg, project: string): Promise<ReviewedJournalEntry[]> {
  const rows = await db
    .select({ entry: journalEntries.body, review: journalReviews, run: runs })
    .from(journalReviews)
    .innerJoin(journalEntries, eq(journalEntries.id, journalReviews.entryId))
    .innerJoin(runs, and(eq(runs.project, journalEntries.project), eq(runs.id, journalEntries.runId)))
    .where(
      and(
        eq(journalReviews.project, project),
        eq(journalEntries.project, project),
        ne(runs.status, "running"),
      ),
    )
    .orderBy(asc(journalEntries.createdAt), asc(journalEntries.id));
  return rows.map((row) => ({
    entry: row.entry,
    run: toRun(row.run),
    review: toReview(row.review),
  }));
}
