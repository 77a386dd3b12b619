// One section page (architecture.md, decisions.md, incidents.md, patterns.md): the reviewed records homed there.
import { claim, journalDetails, memoryDetails, stateDetails } from "../claims.js";
import { JOURNAL_SECTIONS, journalItemId, PAGES, type Section, stateSection } from "../layout.js";
import { finish, header, list, SECTION_HOLDS, SECTION_TITLES } from "../page-frame.js";
import type { Prepared } from "../prepared.js";

export function sectionPage(prepared: Prepared, section: Section): string {
  const page = PAGES[section];
  const out = header(prepared, SECTION_TITLES[section], `This page holds: ${SECTION_HOLDS[section]}.`);
  const current = prepared.state.filter(
    (item) => item.status === "current" && stateSection(item.stateKey ?? "") === section,
  );
  const memory = prepared.memory.filter((item) => prepared.home.get(item.id) === page);
  const skills = prepared.skills.filter((item) => prepared.home.get(item.id) === page);
  const journal = prepared.journal.filter((row) => JOURNAL_SECTIONS[row.entry.category] === section);
  let any = false;
  if (current.length > 0) {
    any = true;
    out.push(
      "## Current state",
      "",
      `Each value's history and validity window are on [Temporal state](${PAGES.temporalState}).`,
      "",
      ...list(
        current.map((item) =>
          claim(prepared, page, item.id, item.summary, stateDetails(item, [], prepared, page), "current"),
        ),
        "",
      ),
    );
  }
  if (memory.length > 0) {
    any = true;
    out.push(
      "## Authored memory",
      "",
      ...list(
        memory.map((item) => claim(prepared, page, item.id, item.summary, memoryDetails(item), "active")),
        "",
      ),
    );
  }
  if (skills.length > 0) {
    any = true;
    out.push(
      "## Promoted skills",
      "",
      ...list(
        skills.map((item) => claim(prepared, page, item.id, item.summary, memoryDetails(item), "promoted")),
        "",
      ),
    );
  }
  if (journal.length > 0) {
    any = true;
    out.push(
      "## Reviewed journal entries",
      "",
      ...list(
        journal.map((row) =>
          claim(
            prepared,
            page,
            journalItemId(row.entry.id),
            row.entry.summary,
            journalDetails(row),
            "reviewed",
          ),
        ),
        "",
      ),
    );
  }
  if (!any) out.push("_No reviewed records in this section._", "");
  return finish(out);
}
