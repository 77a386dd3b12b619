import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { factText, put, tempDir } from "@kxm/test-support";
import type { MemoryFact } from "../../src/memory-file.js";

// The memory tests' fixtures. The writers other packages' tests use too live in @kxm/test-support.
export {
  expectKxmError,
  expectKxmRejection,
  factText,
  put,
  TEST_RUNNER_MD,
} from "@kxm/test-support";

/** A fresh project root in the system temp folder, removed after the test. */
export function tempRoot(): Promise<string> {
  return tempDir("kxm-memory-");
}

/** Writes a fact into `.kxm/memory/<name>`. */
export function putFact(root: string, name: string, overrides: Record<string, string | undefined> = {}) {
  return put(root, `.kxm/memory/${name}`, factText(overrides));
}

/** Every file under `dir` (relative path -> bytes as base64), for byte-for-byte comparisons. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(current: string, prefix: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) await walk(join(current, entry.name), rel);
      else if (entry.isFile()) out[rel] = (await readFile(join(current, entry.name))).toString("base64");
      else out[rel] = "(other)";
    }
  }
  await walk(dir, "");
  return out;
}

/** A parsed, active project fact `id` (file `.kxm/memory/<id>.md`), with `overrides`. */
export function fact(id: string, overrides: Partial<MemoryFact> = {}): MemoryFact {
  return {
    file: `.kxm/memory/${id}.md`,
    id,
    scope: "project",
    kind: "convention",
    summary: `Summary of ${id}`,
    provenance: { sourceType: "git" },
    authority: "instruction",
    confidence: "verified",
    lifecycle: "active",
    evidenceRefs: [],
    body: "",
    ...overrides,
  };
}
