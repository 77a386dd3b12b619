import { isKxmError, KxmError } from "@kxm/contract";
import { assertNoControlPlaneFields, findControlPlaneField, redactSecrets } from "@kxm/provenance";
import { readFrontMatter } from "./memory-front-matter.js";
import {
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
  /** The Markdown after the front matter, without its opening blank lines and closing white space. */
  body: string;
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
