// The compiler's first step: the reviewed records sorted into the order the pages list them, each with its home page.
import {
  type ContextItem,
  compareCodeUnits,
  type ReviewedJournalEntry,
  type WikiRecords,
} from "@kxm/contract";
import { JOURNAL_SECTIONS, journalItemId, memorySection, PAGES } from "./layout.js";

/** Records in the order the pages list them, with each record's home page (where its anchor is). */
export interface Prepared {
  project: string;
  generatedAt: string;
  state: ContextItem[];
  memory: ContextItem[];
  skills: ContextItem[];
  journal: ReviewedJournalEntry[];
  contradictions: WikiRecords["contradictions"];
  home: Map<string, string>;
}

/** What compiling found, for the command's summary line. */
export interface WikiCounts {
  currentState: number;
  supersededState: number;
  stateKeys: number;
  memory: number;
  skills: number;
  journal: number;
  contradictions: number;
}

function byId(a: { id: string }, b: { id: string }): number {
  return compareCodeUnits(a.id, b.id);
}

function byStateOrder(a: ContextItem, b: ContextItem): number {
  return (
    compareCodeUnits(a.stateKey ?? "", b.stateKey ?? "") ||
    compareCodeUnits(a.validFrom ?? "", b.validFrom ?? "") ||
    compareCodeUnits(a.id, b.id)
  );
}

/**
 * Keeps only reviewed records (current and superseded state; memory, skills and journal rows as given), sorts every
 * list by code unit whatever order the records came in, and records each one's home page.
 */
export function prepare(records: WikiRecords): Prepared {
  const state = records.state
    .filter((item) => item.kind === "state" && (item.status === "current" || item.status === "superseded"))
    .sort(byStateOrder);
  const memory = [...records.memory].sort(byId);
  const skills = [...records.skills].sort(byId);
  const journal = [...records.journal].sort(
    (a, b) =>
      compareCodeUnits(a.entry.createdAt, b.entry.createdAt) || compareCodeUnits(a.entry.id, b.entry.id),
  );
  const home = new Map<string, string>();
  for (const item of state) home.set(item.id, PAGES.temporalState);
  for (const item of memory) home.set(item.id, PAGES[memorySection(item.id)]);
  for (const item of skills) home.set(item.id, PAGES.patterns);
  for (const row of journal)
    home.set(journalItemId(row.entry.id), PAGES[JOURNAL_SECTIONS[row.entry.category]]);
  const contradictions = {
    state: [...records.contradictions.state]
      .map((entry) => ({ stateKey: entry.stateKey, itemIds: [...entry.itemIds].sort(compareCodeUnits) }))
      .sort((a, b) => compareCodeUnits(a.stateKey, b.stateKey)),
    journal: [...records.contradictions.journal].sort(compareCodeUnits),
  };
  return {
    project: records.project,
    generatedAt: records.generatedAt,
    state,
    memory,
    skills,
    journal,
    contradictions,
    home,
  };
}

/** Counts of what the pages of prepared records hold. */
export function countPrepared(prepared: Prepared): WikiCounts {
  return {
    currentState: prepared.state.filter((item) => item.status === "current").length,
    supersededState: prepared.state.filter((item) => item.status === "superseded").length,
    stateKeys: new Set(prepared.state.map((item) => item.stateKey)).size,
    memory: prepared.memory.length,
    skills: prepared.skills.length,
    journal: prepared.journal.length,
    contradictions: prepared.contradictions.state.length + prepared.contradictions.journal.length,
  };
}
