// Examples in the docs are tested: every fenced block marked `file=<path>` must equal that file, every block
// marked `output=<path>` must equal what `node <path>` prints, and `output-tail=<path>` its last lines. What a
// script prints is what a terminal shows: standard output and standard error through one pipe, in the order they
// were written. The examples import the built packages (dist), so this runs after the build, as the README's test
// command does. Blocks marked `run=<guide>` are the guides' walkthroughs, run from an empty folder by
// guides.test.ts.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { docs, fences, ROOT } from "./fences.js";

const KINDS = ["file", "output", "output-tail"] as const;

const all = docs()
  .flatMap(fences)
  .flatMap((fence) =>
    KINDS.filter((kind) => fence.attributes[kind] !== undefined).map((kind) => ({
      ...fence,
      kind,
      target: fence.attributes[kind]!,
    })),
  );

describe("documentation examples", () => {
  test("the docs hold tested examples", () => {
    expect(all.filter((block) => block.kind !== "file").length).toBeGreaterThan(0);
  });

  test.each(all.map((block) => [`${block.doc}:${block.line} ${block.kind}=${block.target}`, block] as const))(
    "%s",
    (_, block) => {
      const target = join(ROOT, block.target);
      if (block.kind === "file") {
        expect(block.body).toBe(readFileSync(target, "utf8"));
        return;
      }
      const output = execFileSync("/bin/sh", ["-c", '"$0" "$1" 2>&1', process.execPath, target], {
        cwd: ROOT,
        encoding: "utf8",
      });
      if (block.kind === "output") expect(output).toBe(block.body);
      else expect(output.endsWith(`\n${block.body}`)).toBe(true);
    },
  );
});

/** A heading's anchor as GitHub makes it: lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(path: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of prose(path).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  // Explicit anchors, for places no heading names (docs/reference/behaviour.md's steps and points).
  for (const match of prose(path).matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(match[1]!);
  return found;
}

/** A doc without its fenced blocks, whose text is code rather than links and headings. */
function prose(path: string): string {
  return readFileSync(path, "utf8").replace(/^```[\s\S]*?^```$/gm, "");
}

describe("the README's demo", () => {
  // The README says what `npm run demo` ends with, and its output-tail block runs hub-demo.mjs: that holds only
  // while the npm command's last step is that script (npm and pnpm print their headers before it, nothing after).
  test("npm run demo ends by running docs/examples/hub-demo.mjs", () => {
    const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8"));
    expect(json("package.json").scripts.demo).toBe("node scripts/dev.mjs demo");
    const task = /\n {2}demo\(\) \{\n([\s\S]*?)\n {2}\},/.exec(
      readFileSync(join(ROOT, "scripts/dev.mjs"), "utf8"),
    );
    expect(task?.[1]?.trim().split("\n").at(-1)?.trim()).toBe(
      'run("demo", ["--filter", "@kxm/examples", "run", "demo"]);',
    );
    expect(json("docs/examples/package.json").scripts.demo).toBe("node hub-demo.mjs");
    const tail = all.filter((block) => block.doc === "README.md" && block.kind === "output-tail");
    expect(tail.map((block) => block.target)).toEqual(["docs/examples/hub-demo.mjs"]);
  });
});

describe("documentation links", () => {
  test.each(docs().map((doc) => [relative(ROOT, doc), doc] as const))(
    "every relative link of %s reaches a file, and its anchor a heading",
    (_, doc) => {
      const broken: string[] = [];
      for (const [, link] of prose(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link!)) continue;
        const [path, anchor] = link!.split("#");
        const target = path ? resolve(dirname(doc), path) : doc;
        if (!existsSync(target)) broken.push(link!);
        else if (anchor && target.endsWith(".md") && !anchors(target).has(anchor)) broken.push(link!);
      }
      expect(broken).toEqual([]);
    },
  );
});
