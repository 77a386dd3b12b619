import { isKxmError, KxmError } from "@kxm/contract";
import { assertNoControlPlaneFields, findControlPlaneField, redactSecrets } from "@kxm/provenance";
import { readFrontMatter } from "./memory-front-matter.js";
import {
  type CHECK_FAILURE_POLICIES,
  CHECK_TIMEOUT_DEFAULT_SECONDS,
  firstBrokenFieldRule,
  isMapping,
  type MEMORY_AUTHORITIES,
  type MEMORY_CONFIDENCES,
  type MEMORY_LIFECYCLES,
  type MEMORY_SCOPES,
} from "./memory-rules.js";

export { MEMORY_SCHEMA, MEMORY_SCOPES } from "./memory-rules.js";

/** Who a fact is for: one agent, the project, one run, or every project of the operator. */
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** One authored memory fact: a `.kxm/memory/*.md` file, checked, with its summary and source reference redacted. */
export interface MemoryFact {
  /** Project-relative path with forward slashes. */
  file: string;
  id: string;
  scope: MemoryScope;
  kind: string;
  summary: string;
  provenance: { sourceType: string; sourceRef?: string };
  authority: (typeof MEMORY_AUTHORITIES)[number];
  confidence: (typeof MEMORY_CONFIDENCES)[number];
  lifecycle: (typeof MEMORY_LIFECYCLES)[number];
  evidenceRefs: string[];
  /** When the fact stops being served, as an ISO 8601 date-time (a date reads as 00:00 UTC that day). */
  expiresAt?: string;
  /** When the fact is due for review (still served, listed as due), as an ISO 8601 date-time. */
  reviewBy?: string;
  /** The deterministic check `kxm memory verify` runs: exit 0 means the fact still holds. */
  check?: FactCheck;
  /** The Markdown after the front matter, without its opening blank lines and closing white space. */
  body: string;
}

/** A fact's check: an argument vector run in the checkout without a shell, its time limit, and its policy. */
export interface FactCheck {
  /** The program, then its arguments. */
  command: string[];
  timeoutSeconds: number;
  /** `report` (default): a failure is reported; `withhold`: a failing fact is also withheld (`check_failed`). */
  onFailure: (typeof CHECK_FAILURE_POLICIES)[number];
}

/** A date-only value (`2026-09-01`) as the instant that day begins in UTC; a date-time as written. */
function instant(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
}

/** Why a memory file is refused: the file, the field (or `(front matter)`, `(file)`), and the rule it breaks. */
export interface MemoryProblem {
  file: string;
  field: string;
  rule: string;
}

/** `<file>: <field>: <rule>` on one line. */
export function formatMemoryProblem(problem: MemoryProblem): string {
  return `${problem.file}: ${problem.field}: ${problem.rule}`.replace(/\s+/g, " ");
}

function toFact(file: string, data: Record<string, unknown>, body: string): MemoryFact {
  // The rules have held, so every cast below names a value already checked.
  const provenance = data.provenance as { sourceType: string; sourceRef?: string | null };
  const fact: MemoryFact = {
    file,
    id: data.id as string,
    scope: data.scope as MemoryScope,
    kind: (data.kind as string).trim(),
    summary: redactSecrets((data.summary as string).trim()),
    provenance: { sourceType: provenance.sourceType.trim() },
    authority: data.authority as MemoryFact["authority"],
    confidence: data.confidence as MemoryFact["confidence"],
    lifecycle: data.lifecycle as MemoryFact["lifecycle"],
    evidenceRefs: [...((data.evidenceRefs as string[] | null | undefined) ?? [])],
    body,
  };
  if (typeof provenance.sourceRef === "string") {
    fact.provenance.sourceRef = redactSecrets(provenance.sourceRef.trim());
  }
  if (typeof data.expiresAt === "string") fact.expiresAt = instant(data.expiresAt);
  if (typeof data.reviewBy === "string") fact.reviewBy = instant(data.reviewBy);
  const check = data.check as Record<string, unknown> | null | undefined;
  if (check !== null && check !== undefined) {
    fact.check = {
      command: [...(check.command as string[])],
      timeoutSeconds: (check.timeoutSeconds as number | null | undefined) ?? CHECK_TIMEOUT_DEFAULT_SECONDS,
      onFailure: (check.onFailure as FactCheck["onFailure"] | null | undefined) ?? "report",
    };
  }
  return fact;
}

// A control-plane field is a grant, not a typo: parsing throws it as an authority violation (`throwGrants`),
// validation reports it beside the other problems.
function check(
  file: string,
  text: string,
  throwGrants: boolean,
): { fact: MemoryFact } | { problem: MemoryProblem } {
  const front = readFrontMatter(text);
  if (!front.ok) return { problem: { file, field: "(front matter)", rule: front.rule } };
  if (!isMapping(front.data)) {
    return { problem: { file, field: "(front matter)", rule: "must be a YAML mapping" } };
  }
  if (throwGrants) {
    try {
      assertNoControlPlaneFields(front.data, "memory files");
    } catch (error) {
      if (isKxmError(error)) throw new KxmError(error.code, `${file}: ${error.message}`);
      throw error;
    }
  }
  const controlField = findControlPlaneField(front.data);
  if (controlField !== undefined) {
    return { problem: { file, field: controlField, rule: "control-plane field is refused" } };
  }
  const broken = firstBrokenFieldRule(front.data);
  if (broken) return { problem: { file, ...broken } };
  return { fact: toFact(file, front.data, front.body) };
}

/**
 * Checks one memory file and returns the fact or the first problem, in the order of docs/reference/behaviour.md section 7.
 * A control-plane field is reported as a problem here (rule `control-plane field is refused`), not thrown.
 * Unknown keys other than control-plane fields (`title`, `tags`, `owner`, …) are allowed and ignored.
 */
export function checkMemoryFile(
  file: string,
  text: string,
): { fact: MemoryFact } | { problem: MemoryProblem } {
  return check(file, text, false);
}

/**
 * Parses one memory file (`file` is its project-relative path, used in messages). Throws 400 `memory_invalid`
 * with `<file>: <field>: <rule>` for the first broken rule, or 403 `context_authority_violation` (prefixed with
 * the file) for a top-level control-plane field. No message quotes a field's value.
 */
export function parseMemoryFile(file: string, text: string): MemoryFact {
  const checked = check(file, text, true);
  if ("fact" in checked) return checked.fact;
  throw new KxmError("memory_invalid", formatMemoryProblem(checked.problem));
}
