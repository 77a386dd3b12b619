import type { z } from "zod";
import { type ErrorCode, KxmError } from "./errors.js";

/**
 * Over or under a bound, a fractional number where the limit is an integer count (`z.int()`: budget, recall
 * limit), or a refinement marked with `LIMIT_PARAMS`. An empty string where one is required is a shape error,
 * except a reference, whose "none empty" rule is a marked refinement.
 */
function isLimitIssue(issue: z.core.$ZodIssue): boolean {
  if (issue.code === "too_big") return true;
  if (issue.code === "too_small") return !(issue.origin === "string" && Number(issue.minimum) <= 1);
  if (issue.code === "invalid_type") return issue.expected === "int";
  return issue.code === "custom" && issue.params?.kxmLimit === true;
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(value)" : path.map((part) => String(part)).join(".");
}

/**
 * Turns a zod failure into one `KxmError`: a limit issue becomes `context_limits_exceeded`, anything else the
 * given code. The message names the first issue's field and rule on one line, never the offending value.
 */
export function kxmErrorFromZod(error: z.ZodError, code: ErrorCode, subject: string): KxmError {
  const issue = error.issues[0];
  if (!issue) return new KxmError(code, `${subject} is invalid`);
  const message = `${subject} ${describePath(issue.path)}: ${issue.message}`.replace(/\s+/g, " ");
  return new KxmError(isLimitIssue(issue) ? "context_limits_exceeded" : code, message);
}

/** Parses `value` with `schema`, throwing a `KxmError` (see {@link kxmErrorFromZod}) on failure. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode,
  subject: string,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw kxmErrorFromZod(result.error, code, subject);
  return result.data;
}
