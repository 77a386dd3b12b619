import { isAbsolute } from "node:path";
import {
  compareCodeUnits,
  type ErrorCode,
  IdSchema,
  KxmError,
  LIMITS,
  ProjectIdSchema,
  parseOrThrow,
} from "@kxm/contract";
import { redactSecrets } from "@kxm/provenance";

/** A project id (`invalid_request`, or `context_limits_exceeded` when too long). */
export function projectId(value: unknown): string {
  return parseOrThrow(ProjectIdSchema, value, "invalid_request", "project");
}

/** A record id such as an agent id, run id or proposer name: 1..`max` characters, no white space. */
export function recordId(
  value: unknown,
  field: string,
  code: ErrorCode,
  max: number = LIMITS.idChars,
): string {
  const id = parseOrThrow(IdSchema, value, code, field);
  if (id.length > max) throw new KxmError("context_limits_exceeded", `${field}: over ${max} characters`);
  return id;
}

/**
 * A list of `min`..`max` distinct references, each 1..512 characters. Every failure is `code`: for a state
 * proposal or promotion a missing, excess or malformed reference is an invalid proposal (docs/reference/behaviour.md section 9 point 8).
 */
export function refList(value: unknown, field: string, code: ErrorCode, min: number, max: number): string[] {
  if (!Array.isArray(value)) throw new KxmError(code, `${field}: must be a list of references`);
  if (value.length < min || value.length > max) {
    throw new KxmError(code, `${field}: needs ${min} to ${max} references, got ${value.length}`);
  }
  for (const ref of value) {
    if (typeof ref !== "string" || ref.length === 0 || ref.length > LIMITS.refChars) {
      throw new KxmError(code, `${field}: each reference must be 1 to ${LIMITS.refChars} characters`);
    }
  }
  if (new Set(value).size !== value.length) throw new KxmError(code, `${field}: must not repeat a reference`);
  return [...(value as string[])];
}

/** A trimmed, non-empty text of at most `max` characters (after redaction), with secrets redacted. */
export function redactedText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim().length === 0) {
    throw new KxmError("invalid_request", `${field}: must be a non-empty string`);
  }
  const text = redactSecrets(value.trim());
  if (text.length > max) throw new KxmError("context_limits_exceeded", `${field}: over ${max} characters`);
  return text;
}

/** Sorted (by UTF-16 code unit) union of reference lists, without duplicates. */
export function sortedUnion(...lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const ref of list ?? []) all.add(ref);
  return [...all].sort(compareCodeUnits);
}

/** A checkout root: null, or an absolute path of at most 4,096 characters. */
export function checkoutRoot(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !isAbsolute(value) || value.includes("\0") || value.length > 4096) {
    throw new KxmError("invalid_request", "checkoutRoot: must be an absolute path");
  }
  return value;
}
