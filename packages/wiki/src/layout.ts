import type { JournalCategory } from "@kxm/contract";

/** Where the pages land, relative to the project root (`--out`). */
export const WIKI_DIR = ".kxm/knowledge/wiki";

/** The four section pages, in the order the index lists them. */
export const SECTIONS = ["architecture", "decisions", "incidents", "patterns"] as const;
export type Section = (typeof SECTIONS)[number];

/** Every page the compiler writes, by role; all in one folder, so every link between pages is a bare file name. */
export const PAGES = {
  index: "index.md",
  architecture: "architecture.md",
  decisions: "decisions.md",
  incidents: "incidents.md",
  patterns: "patterns.md",
  temporalState: "temporal-state.md",
  contradictions: "contradictions.md",
  supersededHistory: "superseded-history.md",
} as const;

/** Every page file name, sorted. */
export const PAGE_FILES: readonly string[] = Object.values(PAGES).sort();

/** The first line of every compiled page: how `wiki-compile` recognises a page it wrote (and may replace). */
export const GENERATED_MARKER =
  "<!-- kxm:wiki generated: compiled from reviewed records; edit the records, not this page -->";

/**
 * The section of each journal category (docs/guides/wiki.md, "Sections"): plans describe structure; decisions and
 * state changes are decisions; errors, contradictions and observations are incidents; lessons, experiments,
 * hypotheses and skill candidates are patterns.
 */
export const JOURNAL_SECTIONS: Readonly<Record<JournalCategory, Section>> = {
  plan: "architecture",
  decision: "decisions",
  "state-change": "decisions",
  error: "incidents",
  contradiction: "incidents",
  observation: "incidents",
  lesson: "patterns",
  experiment: "patterns",
  hypothesis: "patterns",
  "skill-candidate": "patterns",
};

/** The first segment of a state key or memory fact id that tags it as architecture. */
const ARCHITECTURE_TAGS: ReadonlySet<string> = new Set(["architecture", "arch", "design"]);

/** True when a state key or memory fact id is tagged architecture: its first `.`, `/`, `-` or `_` segment. */
function isArchitectureTagged(name: string): boolean {
  const first = name.split(/[./_-]/, 1)[0] ?? "";
  return ARCHITECTURE_TAGS.has(first.toLowerCase());
}

/** Current state: architecture when its key is tagged so, else a decision. */
export function stateSection(stateKey: string): Section {
  return isArchitectureTagged(stateKey) ? "architecture" : "decisions";
}

/** Authored memory (`mem_<id>`): architecture when its fact id is tagged so, else a pattern. */
export function memorySection(itemId: string): Section {
  return isArchitectureTagged(itemId.replace(/^mem_/, "")) ? "architecture" : "patterns";
}

/** The item id of a journal entry in the pool and in every packet (docs/reference/behaviour.md section 6). */
export function journalItemId(entryId: string): string {
  return `journal_${entryId}`;
}

/** Claim statuses a page's markers carry. Only `current` claims can go stale. */
export const CLAIM_STATUSES = ["current", "superseded", "active", "promoted", "reviewed"] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];
