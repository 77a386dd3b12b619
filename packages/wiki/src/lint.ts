import type { WikiRecords } from "@kxm/contract";
import { CLAIM_STATUSES, type ClaimStatus, journalItemId, PAGE_FILES, PAGES } from "./layout.js";
import { compareText } from "./markdown.js";

// The linter: compiled pages (file name -> text) and the project's reviewed records in, findings out. It decides
// by record identity and page structure, never by how close two pieces of text are: a claim's marker names its
// record and the status it claims, and only a claim of `current` for a record the hub no longer holds as current is
// a stale state link, wherever on the page the claim sits.

const FINDING_CODES = {
  missing_page: "error",
  broken_reference: "error",
  stale_state_link: "error",
  hidden_contradiction: "error",
  orphan_page: "warning",
  broken_source_link: "warning",
  stale_contradiction: "warning",
  missing_record: "warning",
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

// A link the compiler wrote; record text never makes one, since its brackets are escaped (`\]` does not count).
const LINK = /(?<!\\)\]\(([^)\s]*)\)/g;
const ANCHOR = /<a id="([^"]*)"><\/a>/g;
const CLAIM = /<!-- kxm:claim id=(\S+) status=(\S+) -->/g;
const CONTRADICTION = /<!-- kxm:contradiction id=(\S+)(?: key=(\S+))? -->/g;

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function finding(
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

/** The status of every reviewed record the hub holds, by item id. */
function recordStatuses(records: WikiRecords): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const item of records.state) {
    if (item.status === "current" || item.status === "superseded") statuses.set(item.id, item.status);
  }
  for (const item of records.memory) statuses.set(item.id, "active");
  for (const item of records.skills) statuses.set(item.id, "promoted");
  for (const row of records.journal) statuses.set(journalItemId(row.entry.id), "reviewed");
  return statuses;
}

/** True for a link that leaves the wiki folder or the site (another scheme, an absolute or parent path). */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.includes("../");
}

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
  const findings: Finding[] = [];
  const statuses = recordStatuses(records);
  const anchors = new Map<string, Set<string>>();
  for (const [page, body] of pages) {
    anchors.set(page, new Set([...body.matchAll(ANCHOR)].map((match) => match[1] ?? "")));
  }
  for (const page of PAGE_FILES) {
    if (!pages.has(page)) {
      findings.push(finding("missing_page", page, `${page} is missing: run kxm context wiki-compile again`));
    }
  }

  const claimed = new Set<string>();
  const shown = new Set<string>();
  for (const [page, body] of pages) {
    const lines = body.split("\n");
    lines.forEach((lineText, index) => {
      const line = index + 1;
      for (const match of lineText.matchAll(LINK)) {
        const target = match[1] ?? "";
        if (target === "") continue;
        if (isExternal(target)) {
          const file = decode(target.split("#")[0] ?? "");
          if (
            options.fileExists !== undefined &&
            file.startsWith("../") &&
            !/^[a-z][a-z0-9+.-]*:/i.test(file) &&
            !options.fileExists(file)
          ) {
            findings.push(
              finding("broken_source_link", page, `links the source ${file}, which does not exist`, { line }),
            );
          }
          continue;
        }
        const hash = target.indexOf("#");
        const file = decode(hash < 0 ? target : target.slice(0, hash));
        const fragment = hash < 0 ? undefined : decode(target.slice(hash + 1));
        const targetPage = file === "" ? page : file;
        if (!pages.has(targetPage)) {
          findings.push(
            finding("broken_reference", page, `links ${targetPage}, which is not in the wiki`, { line }),
          );
          continue;
        }
        if (fragment !== undefined && fragment !== "" && !anchors.get(targetPage)?.has(fragment)) {
          findings.push(
            finding("broken_reference", page, `links ${targetPage}#${fragment}, which has no such anchor`, {
              line,
            }),
          );
        }
      }
      for (const match of lineText.matchAll(CLAIM)) {
        const id = decode(match[1] ?? "");
        const status = match[2] ?? "";
        claimed.add(id);
        const actual = statuses.get(id);
        if (!(CLAIM_STATUSES as readonly string[]).includes(status)) {
          findings.push(
            finding("broken_reference", page, `claims ${id} with an unknown status ${status}`, { line, id }),
          );
        } else if (actual === undefined) {
          findings.push(
            finding(
              "broken_reference",
              page,
              `claims ${id}, which is not among the project's reviewed records (purged, or never reviewed)`,
              { line, id },
            ),
          );
        } else if ((status as ClaimStatus) === "current" && actual !== "current") {
          findings.push(
            finding("stale_state_link", page, `claims ${id} is current, but the hub holds it as ${actual}`, {
              line,
              id,
            }),
          );
        }
      }
      if (page === PAGES.contradictions) {
        for (const match of lineText.matchAll(CONTRADICTION)) {
          const id = decode(match[1] ?? "");
          const key = match[2] === undefined ? undefined : decode(match[2]);
          shown.add(contradictionKey(id, key));
        }
      }
    });
  }

  const open = new Set<string>();
  for (const entry of records.contradictions.state) {
    for (const id of entry.itemIds) open.add(contradictionKey(id, entry.stateKey));
  }
  for (const id of records.contradictions.journal) open.add(contradictionKey(id, undefined));
  if (pages.has(PAGES.contradictions)) {
    for (const key of [...open].sort(compareText)) {
      if (!shown.has(key)) {
        const [id, stateKey] = splitContradictionKey(key);
        findings.push(
          finding(
            "hidden_contradiction",
            PAGES.contradictions,
            stateKey === undefined
              ? `the open contradiction of journal item ${id} is not shown`
              : `the open contradiction on key ${stateKey} (item ${id}) is not shown`,
            { id },
          ),
        );
      }
    }
    for (const key of [...shown].sort(compareText)) {
      if (!open.has(key)) {
        const [id] = splitContradictionKey(key);
        findings.push(
          finding(
            "stale_contradiction",
            PAGES.contradictions,
            `shows a contradiction of ${id} that is no longer open`,
            {
              id,
            },
          ),
        );
      }
    }
  }

  const index = pages.get(PAGES.index);
  if (index !== undefined) {
    const linked = new Set(
      [...index.matchAll(LINK)]
        .map((match) => match[1] ?? "")
        .filter((target) => !isExternal(target))
        .map((target) => decode(target.split("#")[0] ?? "")),
    );
    for (const page of pages.keys()) {
      if (page !== PAGES.index && !linked.has(page)) {
        findings.push(finding("orphan_page", page, `${page} is not linked from ${PAGES.index}`));
      }
    }
  }

  for (const id of [...statuses.keys()].sort(compareText)) {
    if (!claimed.has(id)) {
      findings.push(
        finding(
          "missing_record",
          PAGES.index,
          `reviewed record ${id} is on no page: compile the wiki again`,
          { id },
        ),
      );
    }
  }

  return findings.sort(
    (a, b) =>
      compareText(a.page, b.page) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      compareText(a.code, b.code) ||
      compareText(a.id ?? "", b.id ?? ""),
  );
}

function contradictionKey(id: string, stateKey: string | undefined): string {
  return stateKey === undefined ? id : `${id}\u0000${stateKey}`;
}

function splitContradictionKey(key: string): [string, string | undefined] {
  const at = key.indexOf("\u0000");
  return at < 0 ? [key, undefined] : [key.slice(0, at), key.slice(at + 1)];
}

/** One finding as a line: `<severity> <code> <page>[:<line>] <message>`. */
export function formatFinding(found: Finding): string {
  const where = found.line === undefined ? found.page : `${found.page}:${found.line}`;
  return `${found.severity} ${found.code} ${where} ${found.message}`;
}
