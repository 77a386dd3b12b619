// The index.md page: the compile time, what the wiki is, a table of every page and the record counts.
import {
  GENERATED_MARKER,
  JOURNAL_SECTIONS,
  PAGES,
  SECTIONS,
  type Section,
  stateSection,
} from "../layout.js";
import { code, text } from "../markdown.js";
import { finish, plural, SECTION_HOLDS, SECTION_TITLES } from "../page-frame.js";
import type { Prepared, WikiCounts } from "../prepared.js";

/** The line of index.md that holds the compile time: the one line that differs between two compiles. */
export const TIMESTAMP_PREFIX = "Compiled at: ";

export function indexPage(prepared: Prepared, counts: WikiCounts): string {
  const sectionCount = (section: Section) =>
    prepared.state.filter(
      (item) => item.status === "current" && stateSection(item.stateKey ?? "") === section,
    ).length +
    [...prepared.memory, ...prepared.skills].filter((item) => prepared.home.get(item.id) === PAGES[section])
      .length +
    prepared.journal.filter((row) => JOURNAL_SECTIONS[row.entry.category] === section).length;
  const out = [
    GENERATED_MARKER,
    "",
    `# Knowledge wiki: ${text(prepared.project)}`,
    "",
    `${TIMESTAMP_PREFIX}${prepared.generatedAt}`,
    "",
    `A reviewable Markdown view of what project ${code(prepared.project)} has accepted. It is never the ` +
      "authoritative store: the hub holds state and the journal, Git holds authored memory and skills. Change " +
      "those, then compile again. Only reviewed records are compiled: current and superseded state, authored " +
      "memory, promoted skills, and journal entries of finished runs that an operator reviewed " +
      "(`kxm context review`). Every claim links its record id and names its source.",
    "",
    "## Pages",
    "",
    "| Page | Holds | Records |",
    "|---|---|---:|",
    ...SECTIONS.map(
      (section) =>
        `| [${SECTION_TITLES[section]}](${PAGES[section]}) | ${SECTION_HOLDS[section]} | ${sectionCount(section)} |`,
    ),
    `| [Temporal state](${PAGES.temporalState}) | Every retained value of each state key, with its validity window | ${counts.currentState + counts.supersededState} |`,
    `| [Contradictions](${PAGES.contradictions}) | Open contradictions, listed and never resolved | ${counts.contradictions} |`,
    `| [Superseded history](${PAGES.supersededHistory}) | Superseded values, when they ended and what replaced them | ${counts.supersededState} |`,
    "",
    "## Records",
    "",
    `- ${counts.currentState} current and ${plural(counts.supersededState, "superseded state value")} over ${plural(counts.stateKeys, "key")}`,
    `- ${plural(counts.memory, "authored memory fact")} and ${plural(counts.skills, "promoted skill")}`,
    `- ${plural(counts.journal, "reviewed journal entry", "reviewed journal entries")} of finished runs`,
    `- ${plural(counts.contradictions, "open contradiction")}`,
    "",
  ];
  return finish(out);
}
