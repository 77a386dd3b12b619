import { type ContextItem, isKxmError, LIMITS, ORIGINS, type Origin, SHARED_PROJECT } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import type { MemoryFact, MemoryProblem } from "./memory-file.js";

const MEMORY_ID_PREFIX = "mem_";

function originOf(sourceType: string): Origin {
  return (ORIGINS as readonly string[]).includes(sourceType) ? (sourceType as Origin) : "git";
}

/** The id of a fact's context item: `mem_<id>`, as the hub and dispatch serve it (and revoke it). */
export function factItemId(factId: string): string {
  return `${MEMORY_ID_PREFIX}${factId}`;
}

/**
 * A fact as a context item (docs/reference/behaviour.md section 7): id `mem_<id>`, kind `knowledge`, project `_shared` for
 * operator scope, origin the fact's sourceType when it is one of the seven origins and `git` otherwise,
 * `instruction` and `promoted` authority as `instruction`, `expiresAt` and `reviewBy` as the fact gives them. Goes through `parseContextItem`, so the summary is
 * redacted and an authority above the origin's ceiling is refused with `context_authority_violation`.
 */
export function factToContextItem(fact: MemoryFact, project: string): ContextItem {
  const provenance: Record<string, unknown> = { sourceType: originOf(fact.provenance.sourceType) };
  if (fact.provenance.sourceRef !== undefined) provenance.sourceRef = fact.provenance.sourceRef;
  const raw: Record<string, unknown> = {
    id: factItemId(fact.id),
    kind: "knowledge",
    project: fact.scope === "operator" ? SHARED_PROJECT : project,
    summary: fact.summary,
    provenance,
    authority: fact.authority === "evidence" ? "evidence" : "instruction",
    confidence: fact.confidence,
    scope: fact.scope,
  };
  if (fact.expiresAt !== undefined) raw.expiresAt = fact.expiresAt;
  if (fact.reviewBy !== undefined) raw.reviewBy = fact.reviewBy;
  if (fact.evidenceRefs.length > 0) raw.evidenceRefs = [...fact.evidenceRefs];
  return parseContextItem(raw);
}

/** The project id facts are checked against when no project is at hand: any valid id gives the same verdict. */
const CHECK_PROJECT = "validate";

/** The contract's limits, named by the memory file's own fields (so the rule reads as `memory validate`'s). */
function limitProblem(fact: MemoryFact): { field: string; rule: string } | undefined {
  if (fact.summary.length > LIMITS.summaryChars) {
    return { field: "summary", rule: `must be at most ${LIMITS.summaryChars} characters` };
  }
  if (MEMORY_ID_PREFIX.length + fact.id.length > LIMITS.idChars) {
    return { field: "id", rule: `must be at most ${LIMITS.idChars - MEMORY_ID_PREFIX.length} characters` };
  }
  const sourceRef = fact.provenance.sourceRef;
  if (sourceRef !== undefined && sourceRef.length > LIMITS.sourceRefChars) {
    return { field: "provenance.sourceRef", rule: `must be at most ${LIMITS.sourceRefChars} characters` };
  }
  if (fact.evidenceRefs.length > LIMITS.maxRefs) {
    return { field: "evidenceRefs", rule: `must hold at most ${LIMITS.maxRefs} references` };
  }
  if (fact.evidenceRefs.some((ref) => ref.length > LIMITS.refChars)) {
    return { field: "evidenceRefs", rule: `each must be at most ${LIMITS.refChars} characters` };
  }
  if (new Set(fact.evidenceRefs).size !== fact.evidenceRefs.length) {
    return { field: "evidenceRefs", rule: "must not repeat a reference" };
  }
  return undefined;
}

/**
 * The one rule every path applies to an active fact (`memory validate`, `memory brief`, `memory sync`, the hub):
 * it must become a context item, within the contract's limits (a summary of at most 4,000 characters, a source
 * reference of at most 512, at most 64 evidence references) and its origin's authority ceiling. Returns the item,
 * or the problem as `{ file, field, rule }`, whose rule names the limit or the refusal, never the
 * value. A limit is reported against the file's own field (`summary: must be at most 4000 characters`); anything
 * else `parseContextItem` refuses (an authority above the origin's ceiling) as `(context item)`. `project` defaults
 * to a placeholder: the verdict does not depend on it.
 */
export function admitFact(
  fact: MemoryFact,
  project: string = CHECK_PROJECT,
): { item: ContextItem } | { problem: MemoryProblem } {
  const limit = limitProblem(fact);
  if (limit !== undefined) return { problem: { file: fact.file, ...limit } };
  try {
    return { item: factToContextItem(fact, project) };
  } catch (error) {
    if (!isKxmError(error)) throw error;
    return { problem: { file: fact.file, field: "(context item)", rule: error.message } };
  }
}
