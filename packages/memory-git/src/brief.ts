import type { MemoryFact } from "./memory-file.js";
import { oneLine } from "./memory-text.js";

/**
 * The memory brief (`kxm memory brief`, the SessionStart hook): `No active project memory facts.` or
 * `Project memory (N active fact[s])`, a blank line, then `• [<scope>] [<kind>] <summary> (<id>)` per active fact,
 * in the given order. Lines are joined with `\n`, with no trailing newline. A multi-line summary or kind is put on
 * one line so each fact stays one line.
 */
export function renderBrief(facts: readonly MemoryFact[]): string {
  const active = facts.filter((fact) => fact.lifecycle === "active");
  if (active.length === 0) return "No active project memory facts.";
  const header = `Project memory (${active.length} active ${active.length === 1 ? "fact" : "facts"})`;
  const lines = active.map(
    (fact) => `• [${fact.scope}] [${oneLine(fact.kind)}] ${oneLine(fact.summary)} (${fact.id})`,
  );
  return [header, "", ...lines].join("\n");
}
