// What every page shares: the header, a list or its empty note, the final newline, section titles and plurals.
import { GENERATED_MARKER, PAGES, type Section } from "./layout.js";
import { code } from "./markdown.js";
import type { Prepared } from "./prepared.js";

/** Each section page's title. */
export const SECTION_TITLES: Readonly<Record<Section, string>> = {
  architecture: "Architecture",
  decisions: "Decisions",
  incidents: "Incidents",
  patterns: "Patterns",
};

/** What each section page holds, as its intro and the index's table say. */
export const SECTION_HOLDS: Readonly<Record<Section, string>> = {
  architecture:
    "Current state and authored memory tagged architecture (a key or fact id starting with architecture, arch or design), and reviewed plans",
  decisions: "Other current state values, and reviewed decisions and state changes",
  incidents: "Reviewed errors, contradictions and observations",
  patterns:
    "Other authored memory, promoted skills, and reviewed lessons, experiments, hypotheses and skill candidates",
};

/** The lines every page but the index opens with: marker, title, the back link and what is compiled, the intro. */
export function header(prepared: Prepared, title: string, intro: string): string[] {
  return [
    GENERATED_MARKER,
    "",
    `# ${title}`,
    "",
    `[Index](${PAGES.index}) · project ${code(prepared.project)} · compiled from reviewed records only: current and ` +
      "superseded state, authored memory, promoted skills and reviewed journal entries of finished runs. Pending " +
      "proposals and unreviewed journal entries are never compiled.",
    "",
    intro,
    "",
  ];
}

/** The lines and a blank line, or the italic `empty` note when there are none. */
export function list(lines: readonly string[], empty: string): string[] {
  return lines.length === 0 ? [`_${empty}_`, ""] : [...lines, ""];
}

/** `1 noun` or `n nouns`. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** Joins lines, with exactly one newline at the end. */
export function finish(lines: readonly string[]): string {
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}
