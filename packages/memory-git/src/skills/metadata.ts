import { compareCodeUnits, RefSchema, TimestampSchema } from "@kxm/contract";
import { z } from "zod";
import { SKILL_NAME_PATTERN } from "./skill-file.js";

/** Where a skill stands: proposed (a candidate), promoted (delivered once it verifies) or rejected (kept). */
export type SkillStatus = "proposed" | "promoted" | "rejected";

/** `metadata.json` of a stored skill folder, schema `kxm.skill.v1`. */
export interface SkillMetadata {
  schema: "kxm.skill.v1";
  id: string;
  name: string;
  description: string;
  /** SHA-256 of the normalised SKILL.md (see `normalizeSkillMarkdown`). */
  contentSha256: string;
  /** Every file of the folder except metadata.json: relative path with `/` to the SHA-256 of its raw bytes. */
  files: Record<string, string>;
  status: SkillStatus;
  proposedBy: string;
  proposedAt: string;
  promotedBy?: string;
  promotedAt?: string;
  evidenceRefs?: string[];
  rejectedBy?: string;
  rejectedAt?: string;
  reason?: string;
}

export const SKILL_SCHEMA = "kxm.skill.v1";
export const SKILL_STATUSES = ["proposed", "promoted", "rejected"] as const satisfies readonly SkillStatus[];
export const METADATA_FILE = "metadata.json";
export const MAX_REASON_CHARS = 500;
export const MIN_EVIDENCE_REFS = 1;
export const MAX_EVIDENCE_REFS = 32;
export const MAX_ACTOR_CHARS = 128;

/** A stored skill id: the slug (at most 40 characters), a dot and 12 hex digits. */
export const SKILL_ID_PATTERN = /^(?=[a-z0-9-]{1,40}\.)[a-z0-9]+(?:-[a-z0-9]+)*\.[0-9a-f]{12}$/;

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * A relative path KXM may read inside a skill folder: forward slashes, no empty, `.` or `..` segment, no
 * backslash or control character, and never the metadata file itself. A hand-edited metadata.json must not be
 * able to point verification outside the folder.
 */
export function isSkillFilePath(path: string): boolean {
  if (path === METADATA_FILE || path === "__proto__") return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (path.length === 0 || /[\\\u0000-\u001f\u007f]/.test(path)) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

/** Someone named in a metadata record: trimmed, 1 to 128 characters, no control characters. */
const ActorSchema = z
  .string()
  .min(1)
  .max(MAX_ACTOR_CHARS)
  .refine((value) => value === value.trim(), "must not start or end with white space")
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), "must not contain control characters");

const statusFields = {
  promoted: ["promotedBy", "promotedAt", "evidenceRefs"],
  rejected: ["rejectedBy", "rejectedAt", "reason"],
} as const;

const MetadataSchema = z
  .strictObject({
    schema: z.literal(SKILL_SCHEMA),
    id: z.string().regex(SKILL_ID_PATTERN, "must be a skill id (<slug>.<12 hex>)"),
    name: z.string().min(1).max(64).regex(SKILL_NAME_PATTERN),
    description: z.string().min(1),
    contentSha256: z.string().regex(SHA256, "must be 64 lowercase hex digits"),
    files: z.record(
      z.string().refine(isSkillFilePath, "must be a relative path inside the skill folder"),
      z.string().regex(SHA256, "must be 64 lowercase hex digits"),
    ),
    status: z.enum(SKILL_STATUSES),
    proposedBy: ActorSchema,
    proposedAt: TimestampSchema,
    promotedBy: ActorSchema.optional(),
    promotedAt: TimestampSchema.optional(),
    evidenceRefs: z
      .array(RefSchema)
      .min(MIN_EVIDENCE_REFS)
      .max(MAX_EVIDENCE_REFS)
      .refine((refs) => new Set(refs).size === refs.length, "must not repeat a reference")
      .optional(),
    rejectedBy: ActorSchema.optional(),
    rejectedAt: TimestampSchema.optional(),
    reason: z.string().min(1).max(MAX_REASON_CHARS).optional(),
  })
  .superRefine((value, context) => {
    for (const [status, fields] of Object.entries(statusFields)) {
      for (const field of fields) {
        const present = value[field] !== undefined;
        if (present !== (value.status === status)) {
          context.addIssue({
            code: "custom",
            path: [field],
            message: present
              ? `not allowed when status is ${value.status}`
              : `required when status is ${status}`,
          });
        }
      }
    }
  });

/**
 * Parses metadata.json text. A problem is one line naming the field and rule, never a value, written to follow
 * the file name: `: is not valid JSON` or ` id: must be ...`.
 */
export function parseSkillMetadata(text: string): { metadata: SkillMetadata } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: ": is not valid JSON" };
  }
  const result = MetadataSchema.safeParse(json);
  if (result.success) return { metadata: result.data };
  const issue = result.error.issues[0];
  // Only schema field names go into the message: a files key is a path the folder chose.
  const field = issue?.path[0] === undefined ? "" : ` ${String(issue.path[0])}`;
  const message =
    issue?.code === "unrecognized_keys"
      ? "holds a field kxm.skill.v1 does not know"
      : issue?.code === "invalid_key"
        ? "holds a path that is not a relative path inside the skill folder"
        : issue?.message;
  return { problem: `${field}: ${(message ?? "is invalid").replace(/\s+/g, " ")}` };
}

/** metadata.json bytes: keys in a fixed order, files sorted by path, two-space JSON and a trailing newline. */
export function serializeSkillMetadata(metadata: SkillMetadata): string {
  const files = Object.fromEntries(Object.entries(metadata.files).sort(([a], [b]) => compareCodeUnits(a, b)));
  const ordered: Record<string, unknown> = {
    schema: SKILL_SCHEMA,
    id: metadata.id,
    name: metadata.name,
    description: metadata.description,
    contentSha256: metadata.contentSha256,
    files,
    status: metadata.status,
    proposedBy: metadata.proposedBy,
    proposedAt: metadata.proposedAt,
  };
  const optional = [
    "promotedBy",
    "promotedAt",
    "evidenceRefs",
    "rejectedBy",
    "rejectedAt",
    "reason",
  ] as const;
  for (const key of optional) {
    if (metadata[key] !== undefined) ordered[key] = metadata[key];
  }
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
