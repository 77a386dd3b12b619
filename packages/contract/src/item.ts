import { z } from "zod";
import { IdSchema, ProjectIdSchema, RefListSchema, TimestampSchema } from "./fields.js";
import { LIMITS } from "./limits.js";
import {
  AuthoritySchema,
  ConfidenceSchema,
  ItemKindSchema,
  ItemStatusSchema,
  OriginSchema,
} from "./vocabulary.js";

/** Where an item came from. Immutable once the item exists. */
export const ProvenanceSchema = z.strictObject({
  sourceType: OriginSchema,
  sourceRef: z.string().min(1).max(LIMITS.sourceRefChars).optional(),
  derivedFrom: RefListSchema.optional(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/**
 * One record in the pool. The schema checks shape and limits; `@kxm/provenance`'s `parseContextItem` adds the
 * rules that need more than one field (origin ceilings, lifecycle, validity window) and redaction.
 */
export const ContextItemSchema = z.strictObject({
  id: IdSchema,
  kind: ItemKindSchema,
  project: ProjectIdSchema,
  summary: z.string().trim().min(1).max(LIMITS.summaryChars),
  provenance: ProvenanceSchema,
  authority: AuthoritySchema,
  confidence: ConfidenceSchema,
  status: ItemStatusSchema.optional(),
  stateKey: z.string().trim().min(1).max(LIMITS.stateKeyChars).optional(),
  scope: z.string().min(1).max(64).optional(),
  observedAt: TimestampSchema.optional(),
  validFrom: TimestampSchema.optional(),
  validUntil: TimestampSchema.optional(),
  /** From this time on the item is withheld from packets and recall (`items_withheld:expired:<n>`). */
  expiresAt: TimestampSchema.optional(),
  /** From this time on the item is still served, and listed as `review_due:<id>` in the packet's gaps. */
  reviewBy: TimestampSchema.optional(),
  evidenceRefs: RefListSchema.optional(),
  supersedes: RefListSchema.optional(),
});
export type ContextItem = z.infer<typeof ContextItemSchema>;
