// The public surface of @kxm/wiki: a pure compiler and linter for the knowledge wiki. No I/O: the CLI reads the
// records from the hub, writes and reads the pages.
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { WikiCounts, WikiPages } from "./compile.js";
export { compileWiki, countRecords, TIMESTAMP_PREFIX } from "./compile.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { Section } from "./layout.js";
export { GENERATED_MARKER, JOURNAL_SECTIONS, PAGE_FILES, PAGES, WIKI_DIR } from "./layout.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { FindingCode, Severity } from "./lint.js";
export { type Finding, formatFinding, lintWiki } from "./lint.js";
