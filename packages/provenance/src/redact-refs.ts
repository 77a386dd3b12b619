import { LIMITS } from "@kxm/contract";
import { redactSecrets } from "./redact.js";

/**
 * One reference with its secrets redacted, cut to the reference limit when `[redacted]` made it longer (the
 * marker is longer than the shortest secrets). A cut can move a secret's boundary, so this redacts again until
 * the reference fits; a reference was valid before redaction, so redaction never turns it into a refusal.
 */
export function redactRef(ref: string): string {
  let out = redactSecrets(ref);
  while (out.length > LIMITS.refChars) {
    let cut = LIMITS.refChars - 1;
    const code = out.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // never split a surrogate pair
    out = redactSecrets(`${out.slice(0, cut)}…`);
  }
  return out;
}

/**
 * A reference list (`evidenceRefs`, `supersedes`, `derivedFrom`) with the secrets of each reference redacted and
 * references that became equal merged, in first-occurrence order: two different secrets both become
 * `[redacted]`, and the list must still hold no repeated reference. A reference that is wholly a secret stays in
 * the list as `[redacted]`, so a list that had references still has at least one. Pure; idempotent.
 */
export function redactRefs(refs: readonly string[]): string[] {
  return [...new Set(refs.map(redactRef))];
}
