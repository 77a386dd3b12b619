import { join } from "node:path";
import { type ContextItem, isKxmError, KxmError, ORIGINS, type Origin, SHARED_PROJECT } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import { formatMemoryProblem, type MemoryFact, type MemoryProblem } from "./memory-file.js";
import {
  checkMemoryEntry,
  duplicateIdProblem,
  listMemoryEntries,
  parseMemoryEntry,
} from "./memory-listing.js";

/** `<root>/.kxm/memory`, where authored memory facts live. */
export function memoryDir(root: string): string {
  return join(root, ".kxm", "memory");
}

function byId(a: MemoryFact, b: MemoryFact): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Every fact in `.kxm/memory/*.md` (not `candidates/` nor any other subfolder), sorted by id. The first malformed
 * file in file-name order fails the whole load (`memory_invalid`, or `context_authority_violation` for a
 * control-plane field); two files with one id fail it naming the second. A missing folder holds no facts.
 */
export async function loadMemory(root: string): Promise<MemoryFact[]> {
  const facts: MemoryFact[] = [];
  for (const entry of await listMemoryEntries(root, memoryDir(root)))
    facts.push(await parseMemoryEntry(entry));
  const seen = new Map<string, string>();
  for (const fact of facts) {
    const problem = duplicateIdProblem(fact, seen);
    if (problem) throw new KxmError("memory_invalid", formatMemoryProblem(problem));
  }
  return facts.sort(byId);
}

/** The facts of {@link loadMemory} whose lifecycle is `active`, sorted by id. */
export async function activeFacts(root: string): Promise<MemoryFact[]> {
  return (await loadMemory(root)).filter((fact) => fact.lifecycle === "active");
}

function originOf(sourceType: string): Origin {
  return (ORIGINS as readonly string[]).includes(sourceType) ? (sourceType as Origin) : "git";
}

/**
 * A fact as a context item (behaviour.md section 7): id `mem_<id>`, kind `knowledge`, project `_shared` for
 * operator scope, origin the fact's sourceType when it is one of the seven origins and `git` otherwise,
 * `instruction` and `promoted` authority as `instruction`. Goes through `parseContextItem`, so the summary is
 * redacted and an authority above the origin's ceiling is refused with `context_authority_violation`.
 */
export function factToContextItem(fact: MemoryFact, project: string): ContextItem {
  const provenance: Record<string, unknown> = { sourceType: originOf(fact.provenance.sourceType) };
  if (fact.provenance.sourceRef !== undefined) provenance.sourceRef = fact.provenance.sourceRef;
  const raw: Record<string, unknown> = {
    id: `mem_${fact.id}`,
    kind: "knowledge",
    project: fact.scope === "operator" ? SHARED_PROJECT : project,
    summary: fact.summary,
    provenance,
    authority: fact.authority === "evidence" ? "evidence" : "instruction",
    confidence: fact.confidence,
    scope: fact.scope,
  };
  if (fact.evidenceRefs.length > 0) raw.evidenceRefs = [...fact.evidenceRefs];
  return parseContextItem(raw);
}

/**
 * Checks every memory file without stopping at the first problem: each file's rules, duplicate ids, and that each
 * active fact becomes a context item. Returns the files checked (project-relative, in name order) and the
 * problems in file order.
 */
export async function validateMemory(root: string): Promise<{ files: string[]; problems: MemoryProblem[] }> {
  const entries = await listMemoryEntries(root, memoryDir(root));
  const problems: MemoryProblem[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const checked = await checkMemoryEntry(entry);
    if ("problem" in checked) {
      problems.push(checked.problem);
      continue;
    }
    const duplicate = duplicateIdProblem(checked.fact, seen);
    if (duplicate) problems.push(duplicate);
    if (checked.fact.lifecycle !== "active") continue;
    try {
      factToContextItem(checked.fact, "validate");
    } catch (error) {
      if (!isKxmError(error)) throw error;
      problems.push({ file: checked.fact.file, field: "(context item)", rule: error.message });
    }
  }
  return { files: entries.map((entry) => entry.file), problems };
}
