import { compareCodeUnits, type ErrorCode, KxmError, LIMITS } from "@kxm/contract";
import { redactRefs, redactSecrets } from "@kxm/provenance";
import { MAX_ACTOR_CHARS, MAX_EVIDENCE_REFS, MAX_REASON_CHARS, MIN_EVIDENCE_REFS } from "./metadata.js";

/** A person or agent named by the caller, trimmed: 1 to 128 characters, no control characters. */
export function checkActor(value: unknown, field: string, code: ErrorCode): string {
  const actor = typeof value === "string" ? value.trim() : "";
  if (actor.length === 0) throw new KxmError(code, `${field}: must not be empty`);
  if (actor.length > MAX_ACTOR_CHARS)
    throw new KxmError(code, `${field}: must be at most ${MAX_ACTOR_CHARS} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u001f\u007f]/.test(actor))
    throw new KxmError(code, `${field}: must not contain control characters`);
  return actor;
}

/**
 * Whether two actors are the same person for the four-eyes rule: compared after trimming, NFKC and lowercasing,
 * so `Alice` cannot promote what `alice` proposed.
 */
export function sameActor(a: string, b: string): boolean {
  const fold = (value: string) => value.trim().normalize("NFKC").toLowerCase();
  return fold(a) === fold(b);
}

/** The ISO timestamp of `now`, or `invalid_request` for an invalid date. */
export function checkNow(now: unknown): string {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new KxmError("invalid_request", "now: must be a valid Date");
  }
  return now.toISOString();
}

/**
 * Promotion evidence: 1 to 32 references, each trimmed, non-empty and at most 512 characters, none repeated; then
 * redacted (`redactRefs`: references that became equal are merged, so two secrets never read as a repeat) and
 * returned sorted by code unit. Anything else is `skill_promotion_invalid`.
 */
export function checkEvidenceRefs(refs: unknown): string[] {
  const fail = (rule: string) => new KxmError("skill_promotion_invalid", `evidenceRefs: ${rule}`);
  if (!Array.isArray(refs) || refs.length < MIN_EVIDENCE_REFS)
    throw fail("at least one evidence reference is required");
  if (refs.length > MAX_EVIDENCE_REFS) throw fail(`at most ${MAX_EVIDENCE_REFS} evidence references`);
  const out: string[] = [];
  for (const ref of refs) {
    const trimmed = typeof ref === "string" ? ref.trim() : "";
    if (trimmed.length === 0) throw fail("a reference must not be empty");
    if (trimmed.length > LIMITS.refChars)
      throw fail(`a reference must be at most ${LIMITS.refChars} characters`);
    out.push(trimmed);
  }
  if (new Set(out).size !== out.length) throw fail("must not repeat a reference");
  return redactRefs(out).sort(compareCodeUnits);
}

/** A rejection reason: trimmed, 1 to 500 characters before and after redaction. */
export function checkReason(reason: unknown): string {
  const trimmed = typeof reason === "string" ? reason.trim() : "";
  if (trimmed.length === 0) throw new KxmError("invalid_request", "reason: must not be empty");
  const redacted = redactSecrets(trimmed);
  // `[redacted]` is longer than the shortest secrets, so the limit is checked again after redaction.
  if (trimmed.length > MAX_REASON_CHARS || redacted.length > MAX_REASON_CHARS) {
    throw new KxmError("invalid_request", `reason: must be at most ${MAX_REASON_CHARS} characters`);
  }
  return redacted;
}
