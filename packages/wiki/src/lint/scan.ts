// Reads what the compiler wrote into pages: links, anchors, claim markers and contradiction markers, by line.

// A link the compiler wrote; record text never makes one, since its brackets are escaped (`\]` does not count).
const LINK = /(?<!\\)\]\(([^)\s]*)\)/g;
const ANCHOR = /<a id="([^"]*)"><\/a>/g;
const CLAIM = /<!-- kxm:claim id=(\S+) status=(\S+) -->/g;
const CONTRADICTION = /<!-- kxm:contradiction id=(\S+)(?: key=(\S+))? -->/g;

/** A marker or link found on a page, with its 1-based line. */
interface OnLine {
  page: string;
  line: number;
}
export interface Link extends OnLine {
  /** The link target as written, never empty. */
  target: string;
}
export interface ClaimMarker extends OnLine {
  /** The record id, decoded. */
  id: string;
  /** The status as written, maybe not a known one. */
  status: string;
}
export interface ContradictionMarker extends OnLine {
  id: string;
  key: string | undefined;
}

/** A percent-encoded value decoded, or as it is when it does not decode. */
export function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** True for a link that leaves the wiki folder or the site (another scheme, an absolute or parent path). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.includes("../");
}

/** Every match of `pattern` on every line of every page, in page, line and match order. */
function onLines<T>(
  pages: ReadonlyMap<string, string>,
  pattern: RegExp,
  read: (match: RegExpMatchArray, page: string, line: number) => T,
): T[] {
  const found: T[] = [];
  for (const [page, body] of pages) {
    body.split("\n").forEach((lineText, index) => {
      for (const match of lineText.matchAll(pattern)) found.push(read(match, page, index + 1));
    });
  }
  return found;
}

/** Every non-empty link on the pages. */
export function linksOf(pages: ReadonlyMap<string, string>): Link[] {
  return onLines(pages, LINK, (match, page, line) => ({ page, line, target: match[1] ?? "" })).filter(
    (link) => link.target !== "",
  );
}

/** The link targets of one page's text, in order (empty ones too). */
export function linkTargets(body: string): string[] {
  return [...body.matchAll(LINK)].map((match) => match[1] ?? "");
}

/** The anchor names on each page. */
export function anchorsOf(pages: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const anchors = new Map<string, Set<string>>();
  for (const [page, body] of pages) {
    anchors.set(page, new Set([...body.matchAll(ANCHOR)].map((match) => match[1] ?? "")));
  }
  return anchors;
}

/** Every claim marker on the pages. */
export function claimsOf(pages: ReadonlyMap<string, string>): ClaimMarker[] {
  return onLines(pages, CLAIM, (match, page, line) => ({
    page,
    line,
    id: decode(match[1] ?? ""),
    status: match[2] ?? "",
  }));
}

/** Every contradiction marker on one page. */
export function contradictionsOn(page: string, body: string): ContradictionMarker[] {
  return onLines(new Map([[page, body]]), CONTRADICTION, (match, _page, line) => ({
    page,
    line,
    id: decode(match[1] ?? ""),
    key: match[2] === undefined ? undefined : decode(match[2]),
  }));
}
