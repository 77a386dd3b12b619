// The link rule: a link to a missing page or anchor (broken_reference), a source link to a missing file.
import { type Finding, finding } from "./findings.js";
import { anchorsOf, decode, isExternal, linksOf } from "./scan.js";

/**
 * `broken_reference` for every link to a page not in the wiki or an anchor not on its page; `broken_source_link`
 * for a `../` source link whose file `fileExists` denies (only when it is given).
 */
export function checkLinks(
  pages: ReadonlyMap<string, string>,
  fileExists: ((relativePath: string) => boolean) | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const anchors = anchorsOf(pages);
  for (const { page, line, target } of linksOf(pages)) {
    if (isExternal(target)) {
      const file = decode(target.split("#")[0] ?? "");
      if (
        fileExists !== undefined &&
        file.startsWith("../") &&
        !/^[a-z][a-z0-9+.-]*:/i.test(file) &&
        !fileExists(file)
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
  return findings;
}
