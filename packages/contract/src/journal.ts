import { z } from "zod";
import { IdSchema, ProjectIdSchema, RefListSchema, TimestampSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import { JournalCategorySchema } from "./vocabulary.js";

/** One entry in a workflow run's journal. It enters the pool through `journalEntryToItem`. */
export const JournalEntrySchema = z.strictObject({
  id: IdSchema,
  project: ProjectIdSchema,
  runId: IdSchema,
  stage: z.string().min(1).max(LIMITS.roleChars).optional(),
  category: JournalCategorySchema,
  summary: z.string().trim().min(1).max(LIMITS.summaryChars),
  evidenceRefs: RefListSchema.optional(),
  createdAt: TimestampSchema,
});
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** An operator's review of a journal entry of a finished run: only reviewed entries are compiled into the wiki. */
export const JournalReviewSchema = z.strictObject({
  entryId: IdSchema,
  project: ProjectIdSchema,
  /** Who reviewed: the credential's actor (`kxm-admin` for the admin token). */
  reviewedBy: IdSchema,
  reviewedAt: TimestampSchema,
  evidenceRefs: RefListSchema.optional(),
});
export type JournalReview = z.infer<typeof JournalReviewSchema>;
