import { compareCodeUnits, KxmError, WITHHELD_REASONS, type WithheldReason } from "@kxm/contract";
import { checkFailing, factWithheldReason, readCheckRecords, reviewDue } from "./fact-checks.js";
import { admitFact, factItemId } from "./fact-item.js";
import { memoryDir } from "./layout.js";
import { formatMemoryProblem, type MemoryFact, type MemoryProblem } from "./memory-file.js";
import {
  checkMemoryEntry,
  duplicateIdProblem,
  listMemoryEntries,
  parseMemoryEntry,
} from "./memory-listing.js";

function byId(a: MemoryFact, b: MemoryFact): number {
  return compareCodeUnits(a.id, b.id);
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

/**
 * The active facts that agents may be shown at `now` (`memory brief`, `memory sync`): {@link activeFacts}, refused
 * whole with 400 `memory_invalid` and `<file>: (context item): <rule>` (the message `memory validate` prints) when
 * one of them breaks {@link admitFact}'s rule, such as a summary over 4,000 characters. Nothing over a limit is
 * printed or projected. A fact withheld by the hub's rule ({@link factWithheldReason}: expired at `now`, or a
 * failing check whose policy is `withhold`, as the work tree's `.kxm/memory-checks.json` records it) is left out.
 */
export async function deliverableFacts(root: string, now: Date = new Date()): Promise<MemoryFact[]> {
  const facts = await activeFacts(root);
  for (const fact of facts) {
    const admitted = admitFact(fact);
    if ("problem" in admitted) throw new KxmError("memory_invalid", formatMemoryProblem(admitted.problem));
  }
  const { records } = await readCheckRecords(root);
  return facts.filter((fact) => factWithheldReason(fact, records, now.getTime()) === undefined);
}

/** How many facts each reason left out, in reason order ({@link WITHHELD_REASONS}); a reason with none is absent. */
export type WithheldCounts = Partial<Record<WithheldReason, number>>;

/**
 * `facts` less those a hub withholds (`withheld`: context item id, `mem_<id>`, to reason; decision 0017), and how
 * many each reason left out.
 */
export function withoutWithheld(
  facts: readonly MemoryFact[],
  withheld: ReadonlyMap<string, WithheldReason>,
): { facts: MemoryFact[]; withheld: WithheldCounts } {
  const kept: MemoryFact[] = [];
  const counts = new Map<WithheldReason, number>();
  for (const fact of facts) {
    const reason = withheld.get(factItemId(fact.id));
    if (reason === undefined) kept.push(fact);
    else counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const ordered: WithheldCounts = {};
  for (const reason of WITHHELD_REASONS) {
    const count = counts.get(reason);
    if (count !== undefined) ordered[reason] = count;
  }
  return { facts: kept, withheld: ordered };
}

/** What `memory validate` reports of an active fact's dates and check at `now`, beside the problems. */
export interface FactNotice {
  file: string;
  id: string;
  notice: "expired" | "review_due" | "check_failed";
}

/**
 * The expired, review-due and check-failing active facts of the work tree at `now`, in file order then that
 * order; and a problem when `.kxm/memory-checks.json` is malformed. Malformed memory files are skipped (the
 * problems of {@link validateMemory} name them).
 */
export async function factNotices(
  root: string,
  now: Date,
): Promise<{ notices: FactNotice[]; problems: MemoryProblem[] }> {
  const entries = await listMemoryEntries(root, memoryDir(root));
  const { records, problem } = await readCheckRecords(root);
  const notices: FactNotice[] = [];
  for (const entry of entries) {
    const checked = await checkMemoryEntry(entry);
    if ("problem" in checked || checked.fact.lifecycle !== "active") continue;
    const fact = checked.fact;
    const at = now.getTime();
    if (factWithheldReason(fact, records, at) === "expired")
      notices.push({ file: fact.file, id: fact.id, notice: "expired" });
    else if (reviewDue(fact.reviewBy, at))
      notices.push({ file: fact.file, id: fact.id, notice: "review_due" });
    if (checkFailing(fact, records.get(fact.id))) {
      notices.push({ file: fact.file, id: fact.id, notice: "check_failed" });
    }
  }
  return { notices, problems: problem === undefined ? [] : [problem] };
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
    const admitted = admitFact(checked.fact);
    if ("problem" in admitted) problems.push(admitted.problem);
  }
  return { files: entries.map((entry) => entry.file), problems };
}
