import type { WikiRecords } from "@kxm/contract";
import { checkClaims } from "./lint/claims.js";
import { checkContradictions } from "./lint/contradictions.js";
import { checkDates } from "./lint/dates.js";
import { compareFindings, type Finding } from "./lint/findings.js";
import { checkLinks } from "./lint/links.js";
import { checkPages } from "./lint/pages.js";
import { recordStatuses } from "./lint/records.js";

// The linter: compiled pages (file name -> text) and the project's reviewed records in, findings out, one module
// per rule under lint/. It decides by record identity and page structure, never by how close two pieces of text
// are: a claim's marker names its record and the status it claims, and only a claim of `current` for a record the
// hub no longer holds as current is a stale state link, wherever on the page the claim sits.

export {
  type Finding,
  type FindingCode,
  formatFinding,
  type Severity,
} from "./lint/findings.js";

/**
 * Lints compiled pages against the project's reviewed records:
 *
 * - `missing_page` (error): a page the compiler writes is missing.
 * - `broken_reference` (error): a link to a page that does not exist or an anchor that is not on its page, or a
 *   claim of a record the hub no longer holds among the reviewed records (purged, or never reviewed).
 * - `stale_state_link` (error): a claim that a state value is current when the hub holds it as superseded.
 * - `hidden_contradiction` (error): an open contradiction in the hub that contradictions.md does not show.
 * - `orphan_page` (warning): a Markdown page in the folder that index.md does not link.
 * - `broken_source_link` (warning): a source link out of the wiki folder (`../…`, a cited file or a skill's
 *   SKILL.md) to a file that does not exist; checked only when `options.fileExists` is given.
 * - `stale_contradiction` (warning): contradictions.md shows a contradiction that is no longer open.
 * - `missing_record` (warning): a reviewed record of the hub that no page claims (compile again).
 * - `expired_record` (warning): a claim of a record whose `expiresAt` the records' `generatedAt` has reached.
 * - `review_due` (warning): a claim of a record whose `reviewBy` the records' `generatedAt` has reached.
 *
 * Findings come sorted by page, line, code and id.
 */
export interface LintOptions {
  /** Whether a file exists, given its path relative to the wiki folder (`../../../docs/testing.md`). */
  readonly fileExists?: (relativePath: string) => boolean;
}

export function lintWiki(
  pages: ReadonlyMap<string, string>,
  records: WikiRecords,
  options: LintOptions = {},
): Finding[] {
  return [
    ...checkPages(pages),
    ...checkLinks(pages, options.fileExists),
    ...checkClaims(pages, recordStatuses(records)),
    ...checkContradictions(pages, records),
    ...checkDates(pages, records),
  ].sort(compareFindings);
}
