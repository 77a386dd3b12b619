// The page rules: a page the compiler writes that is missing, and a page index.md does not link (orphan).
import { PAGE_FILES, PAGES } from "../layout.js";
import { type Finding, finding } from "./findings.js";
import { decode, isExternal, linkTargets } from "./scan.js";

/** `missing_page` for each compiled page not in `pages`; `orphan_page` for each page index.md does not link. */
export function checkPages(pages: ReadonlyMap<string, string>): Finding[] {
  const findings: Finding[] = [];
  for (const page of PAGE_FILES) {
    if (!pages.has(page)) {
      findings.push(finding("missing_page", page, `${page} is missing: run kxm context wiki-compile again`));
    }
  }
  const index = pages.get(PAGES.index);
  if (index !== undefined) {
    const linked = new Set(
      linkTargets(index)
        .filter((target) => !isExternal(target))
        .map((target) => decode(target.split("#")[0] ?? "")),
    );
    for (const page of pages.keys()) {
      if (page !== PAGES.index && !linked.has(page)) {
        findings.push(finding("orphan_page", page, `${page} is not linked from ${PAGES.index}`));
      }
    }
  }
  return findings;
}
