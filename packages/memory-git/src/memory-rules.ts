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
}

/** True for a YAML mapping: an object that is not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const nonBlank = z.string().refine((value) => value.trim().length > 0);
const oneOf = (values: readonly string[]): string => `must be one of ${values.join(", ")}`;

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
  for (const { field, schema, rule, required } of FIELD_RULES) {
    const value = valueAt(data, field);
    if (value === undefined || value === null) {
      if (required) return { field, rule: "is required" };
      continue;
    }
    if (!schema.safeParse(value).success) return { field, rule };
  }
  return undefined;
}
