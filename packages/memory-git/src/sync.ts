import { KxmError, type WithheldReason } from "@kxm/contract";
import { writeFileWhole } from "./files.js";
import { deliverableFacts, type WithheldCounts, withoutWithheld } from "./load.js";
import type { MemoryFact } from "./memory-file.js";
import { readSyncTargets } from "./memory-sync-targets.js";
import { oneLine } from "./memory-text.js";

/** The marker that opens the memory block in an instruction file. */
export const MEMORY_START = "<!-- kxm:memory:start -->";
/** The marker that closes the memory block in an instruction file. */
export const MEMORY_END = "<!-- kxm:memory:end -->";
/** The instruction files sync updates when they exist, in this order. Sync never creates one. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"] as const;

/** What sync did, or would do, to one file. */
export type SyncAction = "updated" | "appended" | "unchanged";

// A summary or kind that holds a marker would plant a second marker in the file, and the next sync would refuse
// it; escaping the comment opener keeps the text readable in rendered Markdown and no marker can form.
function blockText(text: string): string {
  return oneLine(text).replaceAll("<!--", "&lt;!--");
}

/**
 * The projection block: the start marker, `## Project memory (read-only projection)`, a blank line, then
 * `*No active project memory.*` or one `- **[<scope>]** [<kind>] <summary> (`<id>`)` line per active fact (in the
 * given order), then the end marker; joined by `\n`. Summaries and kinds are put on one line, and a `<!--` in them
 * is written `&lt;!--`, so the block never holds a marker of its own.
 */
export function renderMemoryBlock(facts: readonly MemoryFact[]): string {
  const active = facts.filter((fact) => fact.lifecycle === "active");
  const lines =
    active.length === 0
      ? ["*No active project memory.*"]
      : active.map(
          (fact) =>
            `- **[${fact.scope}]** [${blockText(fact.kind)}] ${blockText(fact.summary)} (\`${fact.id}\`)`,
        );
  return [MEMORY_START, "## Project memory (read-only projection)", "", ...lines, MEMORY_END].join("\n");
}

function indexesOf(text: string, marker: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) found.push(at);
  return found;
}

function refused(fileName: string, problem: string): KxmError {
  return new KxmError("memory_sync_refused", `${fileName} ${problem}; wrote no file.`);
}

const BOM = "\uFEFF";

/**
 * Plans one instruction file's new text (pure). With one start marker followed by one end marker, everything from
 * the start marker through the end marker becomes `block`, and every other byte stays. With no marker, the block is
 * appended after the text's trimmed end and a blank line (`block` plus a line ending when the text is blank; a
 * leading byte order mark is kept). The block takes the file's line ending: CRLF when the file's first line ending
 * is CRLF, else LF. Any occurrence of a marker string counts, inside a code fence too: sync never guesses which
 * text is the user's.
 *
 * Refusals (`memory_sync_refused`), first match wins: more than one start or end marker (`<FILE> has <n>
 * <!-- kxm:memory:start --> and <m> <!-- kxm:memory:end --> markers, not one block; wrote no file.`), then a start
 * with no end, an end with no start, and an end before its start.
 */
export function planSync(
  fileName: string,
  text: string,
  block: string,
): { text: string; action: SyncAction } {
  const starts = indexesOf(text, MEMORY_START);
  const ends = indexesOf(text, MEMORY_END);
  if (starts.length > 1 || ends.length > 1) {
    throw refused(
      fileName,
      `has ${starts.length} ${MEMORY_START} and ${ends.length} ${MEMORY_END} markers, not one block`,
    );
  }
  const start = starts[0];
  const end = ends[0];
  if (start !== undefined && end === undefined)
    throw refused(fileName, "has a start marker with no end marker");
  if (start === undefined && end !== undefined)
    throw refused(fileName, "has an end marker with no start marker");
  if (start !== undefined && end !== undefined && end < start) {
    throw refused(fileName, "has an end marker before its start marker");
  }

  const eol = /\r?\n/.exec(text)?.[0] === "\r\n" ? "\r\n" : "\n";
  const ownBlock = block.replace(/\r?\n/g, eol);
  if (start !== undefined && end !== undefined) {
    const next = text.slice(0, start) + ownBlock + text.slice(end + MEMORY_END.length);
    return { text: next, action: next === text ? "unchanged" : "updated" };
  }
  const bom = text.startsWith(BOM) ? BOM : "";
  const head = text.slice(bom.length).trimEnd();
  const next = head === "" ? `${bom}${ownBlock}${eol}` : `${bom}${head}${eol}${eol}${ownBlock}${eol}`;
  return { text: next, action: "appended" };
}

/**
 * Refreshes the memory block in whichever of AGENTS.md, CLAUDE.md and GEMINI.md exist at `root`, from the active
 * facts served at `now` (default: the clock; expired and check-withheld facts are left out, and those `withheld`
 * names, the items a hub withholds, counted in the answer's `withheld`). A malformed memory file, or an active fact over a limit ({@link deliverableFacts}), fails with
 * `memory_invalid` before anything is read; none of the three files is `memory_sync_no_target`. Every file is planned before any is written, so one refusal writes no file. Files are
 * replaced whole (atomically); a symlink is written through when it resolves to a regular file inside the project
 * and refused otherwise; a file that is not UTF-8 is refused. `dryRun` reports the actions and writes nothing.
 */
export async function syncInstructionFiles(
  root: string,
  options: { dryRun?: boolean; now?: Date; withheld?: ReadonlyMap<string, WithheldReason> } = {},
): Promise<{ block: string; files: Array<{ file: string; action: SyncAction }>; withheld: WithheldCounts }> {
  const deliverable = await deliverableFacts(root, options.now);
  const { facts, withheld } = withoutWithheld(deliverable, options.withheld ?? new Map());
  const block = renderMemoryBlock(facts);
  const targets = await readSyncTargets(root, INSTRUCTION_FILES);
  if (targets.length === 0) {
    throw new KxmError("memory_sync_no_target", `none of ${INSTRUCTION_FILES.join(", ")} exists`);
  }
  const plans = targets.map((target) => ({ ...target, ...planSync(target.file, target.text, block) }));
  if (!options.dryRun) {
    // Two names linked to one file plan the same text; writing it once is enough.
    const written = new Set<string>();
    for (const plan of plans) {
      if (plan.action === "unchanged" || written.has(plan.path)) continue;
      written.add(plan.path);
      await writeFileWhole(plan.path, plan.text);
    }
  }
  return { block, files: plans.map(({ file, action }) => ({ file, action })), withheld };
}
