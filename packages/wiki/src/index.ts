// The public surface of @kxm/wiki: a pure compiler and linter for the knowledge wiki. No I/O: the CLI reads the
// records from the hub, writes and reads the pages.
export { compileWiki, countRecords, TIMESTAMP_PREFIX, type WikiCounts, type WikiPages } from "./compile.js";
export {
  CLAIM_STATUSES,
  type ClaimStatus,
  GENERATED_MARKER,
  isArchitectureTagged,
  JOURNAL_SECTIONS,
  journalItemId,
  memorySection,
  PAGE_FILES,
  PAGES,
  SECTIONS,
  type Section,
  stateSection,
  WIKI_DIR,
} from "./layout.js";
export {
  FINDING_CODES,
  type Finding,
  type FindingCode,
  formatFinding,
  lintWiki,
  type Severity,
} from "./lint.js";
