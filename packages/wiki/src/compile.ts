import { compareCodeUnits, type WikiRecords } from "@kxm/contract";
import { PAGES, SECTIONS } from "./layout.js";
import { contradictionsPage } from "./pages/contradictions.js";
import { indexPage } from "./pages/index-page.js";
import { sectionPage } from "./pages/section.js";
import { supersededHistoryPage } from "./pages/superseded-history.js";
import { temporalStatePage } from "./pages/temporal-state.js";
import { countPrepared, prepare, type WikiCounts } from "./prepared.js";

// The compiler: the project's reviewed records in, a map of page file name -> Markdown out, one module per page
// under pages/. Pure and deterministic: every list is sorted by code unit (prepared.ts), whatever order the
// records came in, and the only value not derived from the records' content is `generatedAt`, printed once, on
// one line of index.md.

export { TIMESTAMP_PREFIX } from "./pages/index-page.js";
export type { WikiCounts } from "./prepared.js";

/** One compiled page per file name of {@link PAGES}, in file-name order. */
export type WikiPages = ReadonlyMap<string, string>;

/** Counts of what the pages hold. */
export function countRecords(records: WikiRecords): WikiCounts {
  return countPrepared(prepare(records));
}

/**
 * Compiles a project's reviewed records into the wiki's pages: file name -> Markdown, in file-name order. Records
 * that are not reviewed never reach a page even when passed in (a `proposed` or `rejected` state item is dropped);
 * contradictions are listed, never resolved. Byte-deterministic for the same records in any order, except the
 * `Compiled at:` line of index.md.
 */
export function compileWiki(records: WikiRecords): WikiPages {
  const prepared = prepare(records);
  const counts = countPrepared(prepared);
  const pages = new Map<string, string>([
    [PAGES.index, indexPage(prepared, counts)],
    [PAGES.temporalState, temporalStatePage(prepared)],
    [PAGES.contradictions, contradictionsPage(prepared)],
    [PAGES.supersededHistory, supersededHistoryPage(prepared)],
    ...SECTIONS.map((section) => [PAGES[section], sectionPage(prepared, section)] as [string, string]),
  ]);
  return new Map([...pages.entries()].sort(([a], [b]) => compareCodeUnits(a, b)));
}
