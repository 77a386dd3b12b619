// Examples in the docs are tested: every fenced block marked `file=<path>` must equal that file, every block
// marked `output=<path>` must equal what `node <path>` prints, and `output-tail=<path>` its last lines. The examples import the built packages (dist), so
// this runs after the build, as the README's test command does.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(path) : entry.name.endsWith(".md") ? [path] : [];
  });
}

interface Block {
  doc: string;
  line: number;
  attribute: "file" | "output" | "output-tail";
  target: string;
  body: string;
}

function blocks(doc: string): Block[] {
  const found: Block[] = [];
  const pattern = /^```[\w-]* (file|output|output-tail)=(\S+)\n([\s\S]*?)^```$/gm;
  const text = readFileSync(doc, "utf8");
  for (const match of text.matchAll(pattern)) {
    found.push({
      doc: relative(root, doc),
      line: text.slice(0, match.index).split("\n").length,
      attribute: match[1] as Block["attribute"],
      target: match[2]!,
      body: match[3]!,
    });
  }
  return found;
}

const docs = [
  join(root, "README.md"),
  ...markdownFiles(join(root, "docs")),
  ...markdownFiles(join(root, "packages")),
];
const all = docs.flatMap(blocks);

describe("documentation examples", () => {
  test("the docs hold tested examples", () => {
    expect(all.filter((block) => block.attribute !== "file").length).toBeGreaterThan(1);
  });

  test.each(
    all.map((block) => [`${block.doc}:${block.line} ${block.attribute}=${block.target}`, block] as const),
  )("%s", (_, block) => {
    const target = join(root, block.target);
    if (block.attribute === "file") {
      expect(block.body).toBe(readFileSync(target, "utf8"));
      return;
    }
    const output = execFileSync(process.execPath, [target], { cwd: root, encoding: "utf8" });
    if (block.attribute === "output") expect(block.body).toBe(output);
    else expect(output.endsWith(`\n${block.body}`)).toBe(true);
  });
});
