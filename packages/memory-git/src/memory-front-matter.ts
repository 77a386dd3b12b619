import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { parseDocument } from "yaml";

/** The YAML front matter of a Markdown file, parsed but not yet checked, and the body after it. */
export type FrontMatter = { ok: true; data: unknown; body: string } | { ok: false; rule: string };

const markdown = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

const BOM = "\uFEFF";
// A first line of three dashes (trailing blanks allowed): the file meant to open a block.
const OPENING_FENCE = /^---[ \t]*(?:\r?\n|$)/;

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === "\n") line++;
  return line;
}

// The rule names the YAML error's code and line, never its message: yaml's messages can quote the source.
function parseYaml(source: string, firstLine: number): FrontMatter | { ok: true; data: unknown } {
  const doc = parseDocument(source, { uniqueKeys: true, prettyErrors: false, logLevel: "silent" });
  const error = doc.errors[0];
  if (error) {
    const line = firstLine + lineOf(source, error.pos[0]) - 1;
    if (error.code === "DUPLICATE_KEY") return { ok: false, rule: `has a duplicate key (line ${line})` };
    return { ok: false, rule: `is not valid YAML (${error.code}, line ${line})` };
  }
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: 100 }) };
  } catch {
    // An unresolved alias or an alias bomb only shows when the document is turned into values.
    return { ok: false, rule: "is not valid YAML (aliases do not resolve)" };
  }
}

/**
 * Finds the `---` YAML `---` block that must open `text` (remark-frontmatter finds it; `yaml` parses it, refusing
 * duplicate keys) and returns its value and the body after it. A leading byte order mark and CRLF line endings
 * are tolerated. The body loses the blank lines that open it and the white space that ends it.
 */
export function readFrontMatter(text: string): FrontMatter {
  // micromark drops a BOM before it counts offsets, so drop it here too and the offsets line up.
  const source = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const first = markdown.parse(source).children[0];
  if (first?.type !== "yaml" || first.position?.end.offset === undefined) {
    if (OPENING_FENCE.test(source)) return { ok: false, rule: "opens with --- but is never closed by ---" };
    return { ok: false, rule: "must open the file: --- then YAML then ---" };
  }
  const parsed = parseYaml(first.value, (first.position.start.line ?? 1) + 1);
  if (!parsed.ok) return parsed;
  const body = source
    .slice(first.position.end.offset)
    .replace(/^(?:[ \t]*\r?\n)+/, "")
    .trimEnd();
  return { ok: true, data: parsed.data, body };
}
