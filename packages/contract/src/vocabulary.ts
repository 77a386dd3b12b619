import { z } from "zod";

/** The kinds of context item, as the guide names them. */
export const ITEM_KINDS = ["evidence", "state", "episode", "knowledge", "skill"] as const;
export const ItemKindSchema = z.enum(ITEM_KINDS);
export type ItemKind = z.infer<typeof ItemKindSchema>;

/** Authorities from strongest to weakest: policy > instruction > evidence > hypothesis. */
export const AUTHORITIES = ["policy", "instruction", "evidence", "hypothesis"] as const;
export const AuthoritySchema = z.enum(AUTHORITIES);
export type Authority = z.infer<typeof AuthoritySchema>;

/** Confidences from strongest to weakest. */
export const CONFIDENCES = ["verified", "probable", "uncertain"] as const;
export const ConfidenceSchema = z.enum(CONFIDENCES);
export type Confidence = z.infer<typeof ConfidenceSchema>;

/** Where content came from (`provenance.sourceType`). The origin caps the authority an item may claim. */
export const ORIGINS = ["human", "workflow", "git", "peer", "tool", "external", "derived"] as const;
export const OriginSchema = z.enum(ORIGINS);
export type Origin = z.infer<typeof OriginSchema>;

/** The highest authority each origin may claim (docs/reference/behaviour.md section 4). */
export const ORIGIN_CEILINGS: Readonly<Record<Origin, Authority>> = {
  human: "policy",
  workflow: "policy",
  git: "instruction",
  peer: "evidence",
  tool: "evidence",
  external: "evidence",
  derived: "evidence",
};

/** Lifecycle status of an item. `superseded` and `rejected` items are never live. */
export const ITEM_STATUSES = ["proposed", "current", "superseded", "rejected"] as const;
export const ItemStatusSchema = z.enum(ITEM_STATUSES);
export type ItemStatus = z.infer<typeof ItemStatusSchema>;

/** Journal categories (docs/reference/behaviour.md section 6). */
export const JOURNAL_CATEGORIES = [
  "plan",
  "decision",
  "contradiction",
  "error",
  "lesson",
  "observation",
  "hypothesis",
  "experiment",
  "state-change",
  "skill-candidate",
] as const;
export const JournalCategorySchema = z.enum(JOURNAL_CATEGORIES);
export type JournalCategory = z.infer<typeof JournalCategorySchema>;

/**
 * Fields that would grant an agent something. Context informs, it never grants: an item or memory file that
 * carries one of these as a top-level key is refused with `context_authority_violation`.
 */
export const CONTROL_PLANE_FIELDS = [
  "permissions",
  "tools",
  "allow",
  "deny",
  "grants",
  "approval",
  "policy",
  "scopes",
  "credentials",
  "secrets",
  "token",
  "apiKey",
  "password",
] as const;

/** The project id that holds defaults shared by every project (operator-scope memory). */
export const SHARED_PROJECT = "_shared";
