import { z } from "zod";

// The field rules of a memory file, in the order docs/reference/behaviour.md section 7 checks them. Each rule's message is ours,
// never zod's, so no message can echo a value.

/** The `schema` every memory file declares. */
export const MEMORY_SCHEMA = "kxm.memory.v1";
/** Who a fact is for. */
export const MEMORY_SCOPES = ["agent", "project", "run", "operator"] as const;
/** Authorities a fact may claim; `promoted` reads as `instruction` in packets. */
export const MEMORY_AUTHORITIES = ["instruction", "evidence", "promoted"] as const;
/** How sure the fact is. */
export const MEMORY_CONFIDENCES = ["verified", "probable", "uncertain"] as const;
/** Only `active` facts reach agents. */
export const MEMORY_LIFECYCLES = ["active", "deprecated", "superseded"] as const;
/** A fact id: lower-case words joined by single `-` or `_`. */
const MEMORY_ID_PATTERN = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/;

interface FieldRule {
  /** Dotted path of the field, as reported. */
  field: string;
  schema: z.ZodType;
  /** What the field must be; never quotes the value. */
  rule: string;
  required: boolean;
  /** Required only when this optional parent is present (`check.command` only with a `check`). */
  within?: string;
}

/** True for a YAML mapping: an object that is not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const nonBlank = z.string().refine((value) => value.trim().length > 0);
const oneOf = (values: readonly string[]): string => `must be one of ${values.join(", ")}`;

/** A date (`2026-09-01`, read as 00:00 UTC that day) or an ISO 8601 date-time with a zone. */
const DATE_RULE = "must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone";
const dateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);
/** What a failing check does: `report` (the default) or `withhold` (the hub serves the fact no longer). */
export const CHECK_FAILURE_POLICIES = ["report", "withhold"] as const;
/** The longest a check may run, in seconds, and the default. */
const CHECK_TIMEOUT_MAX_SECONDS = 600;
export const CHECK_TIMEOUT_DEFAULT_SECONDS = 30;

const FIELD_RULES: readonly FieldRule[] = [
  { field: "schema", schema: z.literal(MEMORY_SCHEMA), rule: `must be ${MEMORY_SCHEMA}`, required: true },
  {
    field: "id",
    schema: z.string().regex(MEMORY_ID_PATTERN),
    rule: `must match ${MEMORY_ID_PATTERN.source}`,
    required: true,
  },
  { field: "scope", schema: z.enum(MEMORY_SCOPES), rule: oneOf(MEMORY_SCOPES), required: true },
  { field: "kind", schema: nonBlank, rule: "must be a non-empty string", required: true },
  { field: "summary", schema: nonBlank, rule: "must be a non-empty string", required: true },
  // Checked before its sourceType so that a list or a string here is named for what it is.
  { field: "provenance", schema: z.custom(isMapping), rule: "must be a mapping", required: false },
  { field: "provenance.sourceType", schema: nonBlank, rule: "must be a non-empty string", required: true },
  { field: "authority", schema: z.enum(MEMORY_AUTHORITIES), rule: oneOf(MEMORY_AUTHORITIES), required: true },
  {
    field: "confidence",
    schema: z.enum(MEMORY_CONFIDENCES),
    rule: oneOf(MEMORY_CONFIDENCES),
    required: true,
  },
  { field: "lifecycle", schema: z.enum(MEMORY_LIFECYCLES), rule: oneOf(MEMORY_LIFECYCLES), required: true },
  { field: "provenance.sourceRef", schema: nonBlank, rule: "must be a non-empty string", required: false },
  {
    field: "evidenceRefs",
    schema: z.array(nonBlank),
    rule: "must be a list of non-empty strings",
    required: false,
  },
  { field: "expiresAt", schema: dateOrDateTime, rule: DATE_RULE, required: false },
  { field: "reviewBy", schema: dateOrDateTime, rule: DATE_RULE, required: false },
  { field: "check", schema: z.custom(isMapping), rule: "must be a mapping", required: false },
  {
    field: "check.command",
    schema: z.array(nonBlank).min(1).max(64),
    rule: "must be a list of 1 to 64 non-empty strings (the program, then its arguments)",
    required: true,
    within: "check",
  },
  {
    field: "check.timeoutSeconds",
    schema: z.int().min(1).max(CHECK_TIMEOUT_MAX_SECONDS),
    rule: `must be a whole number of seconds from 1 to ${CHECK_TIMEOUT_MAX_SECONDS}`,
    required: false,
  },
  {
    field: "check.onFailure",
    schema: z.enum(CHECK_FAILURE_POLICIES),
    rule: oneOf(CHECK_FAILURE_POLICIES),
    required: false,
  },
];

function valueAt(data: Record<string, unknown>, path: string): unknown {
  let current: unknown = data;
  for (const key of path.split(".")) {
    if (!isMapping(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * The first field rule that `data` breaks, in the fixed order, as `{ field, rule }`; undefined when every field
 * holds. A YAML `null` (a key with no value) counts as absent.
 */
export function firstBrokenFieldRule(
  data: Record<string, unknown>,
): { field: string; rule: string } | undefined {
  for (const { field, schema, rule, required, within } of FIELD_RULES) {
    const value = valueAt(data, field);
    if (value === undefined || value === null) {
      const parent = within === undefined ? data : valueAt(data, within);
      if (required && parent !== undefined && parent !== null) return { field, rule: "is required" };
      continue;
    }
    if (!schema.safeParse(value).success) return { field, rule };
  }
  return undefined;
}
