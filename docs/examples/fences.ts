// The fenced blocks of the docs and their attributes: the words after the language on the opening fence, each
// `name=value` or a bare `name`, such as ```yaml file=docs/examples/runtime/fix-bug.yaml run=runtime create=x```.
// Both documentation tests read blocks through this one parser, so an attribute means the same thing to each.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Fence {
  /** The doc, relative to the repository root. */
  doc: string;
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  attributes: Record<string, string>;
  /** The text between the fences, ending with a newline. */
  body: string;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(path) : entry.name.endsWith(".md") ? [path] : [];
  });
}

/** Every doc the tests read: the README, then docs/ and the packages' READMEs. */
export function docs(): string[] {
  return [
    join(ROOT, "README.md"),
    ...markdownFiles(join(ROOT, "docs")),
    ...markdownFiles(join(ROOT, "packages")),
  ];
}

/** The fenced blocks of one doc that carry at least one attribute, in the order they appear. */
export function fences(path: string): Fence[] {
  const text = readFileSync(path, "utf8");
  const found: Fence[] = [];
  for (const match of text.matchAll(/^```([\w-]*) ([^\n]+)\n([\s\S]*?)^```$/gm)) {
    const attributes: Record<string, string> = {};
    for (const word of match[2]!.trim().split(/\s+/)) {
      const [name, ...value] = word.split("=");
      attributes[name!] = value.join("=");
    }
    found.push({
      doc: relative(ROOT, path),
      line: text.slice(0, match.index).split("\n").length,
      lang: match[1]!,
      attributes,
      body: match[3]!,
    });
  }
  return found;
}
