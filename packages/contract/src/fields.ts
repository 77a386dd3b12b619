import { z } from "zod";
import { LIMITS } from "./limits.js";

/** Refinements whose failure means "over a limit" carry this param, so they map to `context_limits_exceeded`. */
export const LIMIT_PARAMS = { params: { kxmLimit: true } } as const;

const noControlOrSpace = /^[^\s\p{Cc}]+$/u;

/** A record id: 1 to 128 characters, no white space or control characters. */
export const IdSchema = z
  .string()
  .min(1)
  .max(LIMITS.idChars)
  .regex(noControlOrSpace, "must not contain white space or control characters");

/** A project id, such as `demo` or `_shared`. */
export const ProjectIdSchema = z
  .string()
  .min(1)
  .max(LIMITS.projectChars)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, "must be letters, digits, '.', '_' or '-'");

/** An ISO 8601 date-time with a zone, such as `2026-09-01T00:00:00Z`. */
export const TimestampSchema = z.iso.datetime({ offset: true });

/**
 * One reference (evidence, supersedes, derivedFrom): non-empty, at most 512 characters. "None empty" is one of the
 * reference limits, so the empty case is a marked refinement (first, so its issue is the one reported); `min(1)`
 * stays for the JSON Schema.
 */
export const RefSchema = z
  .string()
  .refine((ref) => ref.length > 0, { message: "must not be empty", ...LIMIT_PARAMS })
  .min(1)
  .max(LIMITS.refChars);

/** A list of at most 64 distinct, non-empty references. */
export const RefListSchema = z
  .array(RefSchema)
  .max(LIMITS.maxRefs)
  .refine((refs) => new Set(refs).size === refs.length, {
    message: "must not repeat a reference",
    ...LIMIT_PARAMS,
  });

/** The name every admin-token action is recorded under; no operator may take it. */
export const ADMIN_ACTOR = "kxm-admin";

/**
 * A named operator: 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit. The hub
 * records an operator's actions as `operator:<name>`, so an operator can never share an agent id or `kxm-admin`.
 */
export const OperatorNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "must be lowercase letters, digits, '.', '_' or '-'");

/** The actor an operator's proposals, promotions and reviews are recorded under. */
export function operatorActor(name: string): string {
  return `operator:${name}`;
}
