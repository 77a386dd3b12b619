import { z } from "zod";
import { IdSchema, ProjectIdSchema, RefListSchema, TimestampSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import { JournalCategorySchema } from "./vocabulary.js";

/** The subsections of a dispatch prompt's Environment & Memory, where each delivered item was rendered. */
export const PROMPT_SECTIONS = [
  "Shared Defaults",
  "Current State",
  "Recent Episodes",
  "Project Knowledge",
  "Active Skills",
  "Active Contradictions",
] as const;
export type PromptSection = (typeof PROMPT_SECTIONS)[number];

const count = z.int().min(0);

/**
 * What one step attempt's prompt carried, as the runtime reports it with the step's journal entry: ids and
 * metadata only, never an item's text. `items` are the ids the prompt rendered (authored memory `mem_…`, promoted
 * skills `skill_…`, state, episodes, journal items), each with its section, the characters of its line and its
 * rounded arbiter score; `gaps` the dispatch gap codes (`dispatch_context_items_withheld:revoked:2`, ...).
 * The runtime sends at most `LIMITS.maxPacketItems` items and `LIMITS.maxManifestGaps` gaps; `omittedItems` and
 * `omittedGaps` count the rest, which the run's manifest file keeps.
 */
export const StepManifestSchema = z.strictObject({
  /** 1-based. */
  attempt: z.int().min(1),
  agent: IdSchema,
  /** The role the agent id maps to (`critic-arch` is `critic`). */
  role: z.string().min(1).max(LIMITS.roleChars),
  /** The memory revision the run pinned (`ctxrev_…`); null when the run loaded none. */
  memoryRevision: IdSchema.nullable(),
  items: z
    .array(
      z.strictObject({
        id: IdSchema,
        section: z.enum(PROMPT_SECTIONS),
        characters: count,
        score: z.number(),
      }),
    )
    .max(LIMITS.maxPacketItems),
  omittedItems: count.optional(),
  gaps: z.array(z.string().min(1).max(LIMITS.refChars)).max(LIMITS.maxManifestGaps),
  omittedGaps: count.optional(),
  /** The rendered packet's and the whole prompt's estimated tokens. */
  packetTokens: count,
  promptTokens: count,
});
export type StepManifest = z.infer<typeof StepManifestSchema>;

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
  /** A step report's manifest: what the step attempt's prompt carried. */
  manifest: StepManifestSchema.optional(),
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
