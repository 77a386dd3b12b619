// The linter's findings: every code with its severity, how one is built, ordered and printed.
import { compareCodeUnits } from "@kxm/contract";

const FINDING_CODES = {
  missing_page: "error",
  broken_reference: "error",
  stale_state_link: "error",
  hidden_contradiction: "error",
  orphan_page: "warning",
  broken_source_link: "warning",
  stale_contradiction: "warning",
  missing_record: "warning",
  expired_record: "warning",
  review_due: "warning",
} as const;
export type FindingCode = keyof typeof FINDING_CODES;
export type Severity = (typeof FINDING_CODES)[FindingCode];

export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** The page (file name in the wiki folder), or `.` for the folder itself. */
  page: string;
  /** 1-based line, when the finding is on one line. */
  line?: number;
  /** The record id the finding is about, when there is one. */
  id?: string;
  message: string;
}

export function finding(
  code: FindingCode,
  page: string,
  message: string,
  extra: { line?: number; id?: string } = {},
): Finding {
  return {
    code,
    severity: FINDING_CODES[code],
    page,
    ...(extra.line === undefined ? {} : { line: extra.line }),
    ...(extra.id === undefined ? {} : { id: extra.id }),
    message,
  };
}

/** The order findings come in: by page, line, code and id. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    compareCodeUnits(a.page, b.page) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    compareCodeUnits(a.code, b.code) ||
    compareCodeUnits(a.id ?? "", b.id ?? "")
  );
}

/** One finding as a line: `<severity> <code> <page>[:<line>] <message>`. */
export function formatFinding(found: Finding): string {
  const where = found.line === undefined ? found.page : `${found.page}:${found.line}`;
  return `${found.severity} ${found.code} ${where} ${found.message}`;
}
