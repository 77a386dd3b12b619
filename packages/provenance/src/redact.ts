import { SECRET_PATTERNS } from "./secret-patterns.js";
import { type Range, secretlintRanges } from "./secretlint-ranges.js";

/** What a redacted secret becomes. */
export const REDACTED = "[redacted]";

// Digests KXM writes itself and must keep readable (docs/reference/behaviour.md section 9 point 6 and section 7): a skill's
// pinned hash in `skill:<id>@<sha256>` and a memory revision `ctxrev_<sha256>`. Only the 64 hex digits are
// protected, and only from a match that lies wholly inside them: a token assignment whose value happens to be a
// revision is still an assignment and still goes. The skill id is matched loosely (anything but space and `@`)
// so that a secret redacted out of the id does not unprotect the digest on a second pass.
const PROTECTED_DIGESTS: readonly RegExp[] = [
  /(?<=(?<![A-Za-z0-9])skill:[^\s@]{1,160}@)[0-9a-f]{64}(?![A-Za-z0-9])/g,
  /(?<=(?<![A-Za-z0-9])ctxrev_)[0-9a-f]{64}(?![A-Za-z0-9])/g,
];

function matchRanges(text: string, pattern: RegExp): Range[] {
  const ranges: Range[] = [];
  for (const match of text.matchAll(pattern)) {
    if (match[0].length > 0) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}

/** Sorts and merges ranges that overlap or touch, so adjacent secrets become one `[redacted]`. */
function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** The ranges of `text` that hold a secret, merged and in order. */
export function findSecretRanges(text: string): Range[] {
  const candidates: Range[] = secretlintRanges(text);
  for (const { pattern } of SECRET_PATTERNS) candidates.push(...matchRanges(text, pattern));
  const protectedSpans = PROTECTED_DIGESTS.flatMap((pattern) => matchRanges(text, pattern));
  const kept = candidates
    .map(([start, end]): Range => [Math.max(0, start), Math.min(text.length, end)])
    .filter(([start, end]) => end > start)
    .filter(([start, end]) => !protectedSpans.some(([from, to]) => start >= from && end <= to));
  return mergeRanges(kept);
}

const MARKER = /\[redacted\]/g;

function redactOnce(text: string): string {
  const secrets = findSecretRanges(text);
  if (secrets.length === 0) return text;
  // Markers already in the text join a new secret they touch, so a later pass never leaves two side by side.
  const ranges = mergeRanges([...secrets, ...matchRanges(text, MARKER)]).filter(([start, end]) =>
    secrets.some(([from, to]) => from >= start && to <= end),
  );
  let out = "";
  let cursor = 0;
  for (const [start, end] of ranges) {
    out += text.slice(cursor, start) + REDACTED;
    cursor = end;
  }
  return out + text.slice(cursor);
}

// Every pass that changes the text consumes at least one character outside a marker, so passes end; the cap
// only bounds the work on hostile input.
const MAX_PASSES = 16;

/**
 * Replaces every secret in `text` with `[redacted]`: the whole match, with overlapping or adjacent matches
 * merged into one. Pure and deterministic. Passes repeat until nothing changes, because a match can uncover
 * another: a key glued to a token (`key-…github_pat_…`) only shows its right boundary once the token is gone.
 * So redacting twice gives the same text as redacting once.
 */
export function redactSecrets(text: string): string {
  let current = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = redactOnce(current);
    if (next === current) return current;
    current = next;
  }
  return current;
}
