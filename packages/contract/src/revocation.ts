// Revocations and tombstones (decision 0017): what an operator pulled out of every packet and recall, and what was
// forgotten, as the hub answers them and the store keeps them.
import { z } from "zod";
import { IdSchema, ProjectIdSchema, RefSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import { WITHHELD_REASONS } from "./packet.js";

/**
 * What a revocation names: an evidence reference (exact), a source reference (exact) or a prefix of one, an item id
 * (a memory fact, a promoted skill or any stored item), or an agent (everything its key contributed: its state
 * proposals and the values promoted from them).
 */
export const REVOCATION_TARGETS = ["evidence", "source", "source_prefix", "item", "agent"] as const;
export const RevocationTargetSchema = z.enum(REVOCATION_TARGETS);
export type RevocationTarget = z.infer<typeof RevocationTargetSchema>;

/** Why an operator revoked, forgot or lifted: free text, 1 to 500 characters, redacted before it is stored. */
const WithholdReasonTextSchema = z.string().trim().min(1).max(LIMITS.withholdReasonChars);

/** A revocation: who, when, why and what; a lifted one keeps its row and adds who lifted it, when and why. */
export const RevocationSchema = z.object({
  id: z.string(),
  project: z.string(),
  target: RevocationTargetSchema,
  value: z.string(),
  reason: z.string(),
  revokedBy: z.string(),
  revokedAt: z.string(),
  liftedBy: z.string().optional(),
  liftedAt: z.string().optional(),
  liftReason: z.string().optional(),
});
export type Revocation = z.infer<typeof RevocationSchema>;

/** What a forgotten id was when it was forgotten: a stored item (deleted), a journal entry (deleted), or authored. */
export const TOMBSTONE_KINDS = ["item", "journal", "authored"] as const;

/**
 * A tombstone: who forgot which id, when and why, and the SHA-256 (hex) of its content, never the content. The
 * content is the item's summary as stored (a journal entry's summary; an authored fact's or skill's summary as the
 * hub serves it), UTF-8.
 */
export const TombstoneSchema = z.object({
  id: z.string(),
  project: z.string(),
  itemId: z.string(),
  kind: z.enum(TOMBSTONE_KINDS),
  contentSha256: z.string(),
  reason: z.string(),
  forgottenBy: z.string(),
  forgottenAt: z.string(),
  liftedBy: z.string().optional(),
  liftedAt: z.string().optional(),
  liftReason: z.string().optional(),
});
export type Tombstone = z.infer<typeof TombstoneSchema>;

/** The body of a revocation. */
export const RevokeBodySchema = z.strictObject({
  target: RevocationTargetSchema,
  value: RefSchema,
  reason: WithholdReasonTextSchema,
});

/** The body of a forget, a lift of a revocation and a lift of a tombstone. */
export const ReasonBodySchema = z.strictObject({ reason: WithholdReasonTextSchema });

export const RevocationParamsSchema = z.strictObject({ project: ProjectIdSchema, revocationId: IdSchema });
export const TombstoneParamsSchema = z.strictObject({ project: ProjectIdSchema, tombstoneId: IdSchema });

/**
 * One authored item (a memory fact `mem_…` or a promoted skill `skill_…` of the project's checkout) the hub
 * withholds, and why: its id and reason only, never its summary, so an agent may read it.
 */
export const WithheldAuthoredSchema = z.object({ id: z.string(), reason: z.enum(WITHHELD_REASONS) });
