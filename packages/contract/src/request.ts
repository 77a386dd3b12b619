import { z } from "zod";
import { IdSchema, LIMIT_PARAMS, ProjectIdSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import { ItemKindSchema } from "./vocabulary.js";

const KindListSchema = z
  .array(ItemKindSchema)
  .min(LIMITS.minIncludeKinds)
  .max(LIMITS.maxIncludeKinds)
  .refine((kinds) => new Set(kinds).size === kinds.length, {
    message: "must not repeat a kind",
    ...LIMIT_PARAMS,
  });

/** A request for a context packet. */
export const ContextRequestSchema = z.strictObject({
  project: ProjectIdSchema,
  role: z.string().min(1).max(LIMITS.roleChars),
  task: z.string().max(LIMITS.taskChars),
  /** Defaults to the role's budget. */
  budgetTokens: z.int().min(LIMITS.minBudgetTokens).max(LIMITS.maxBudgetTokens).optional(),
  /** Defaults to the role's kinds. */
  includeKinds: KindListSchema.optional(),
  /** Limit journal items to one workflow run. */
  runId: IdSchema.optional(),
  /** Limit journal items to one stage of the run. */
  stage: z.string().min(1).max(LIMITS.roleChars).optional(),
});
export type ContextRequest = z.infer<typeof ContextRequestSchema>;

/** A request to recall records by query; answers carry metadata only. */
export const RecallRequestSchema = z.strictObject({
  project: ProjectIdSchema,
  query: z.string().max(LIMITS.recallQueryChars),
  kinds: KindListSchema.optional(),
  limit: z.int().min(1).max(LIMITS.recallMaxLimit).optional(),
});
export type RecallRequest = z.infer<typeof RecallRequestSchema>;
