import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ErrorCode, isKxmError } from "@kxm/contract";
import { afterEach, expect } from "vitest";

const roots: string[] = [];

afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

/** A fresh project root in the system temp folder, removed after the test. */
export async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "kxm-memory-"));
  roots.push(root);
  return root;
}

/** Writes `text` at `rel` under `root`, creating folders. */
export async function put(root: string, rel: string, text: string | Uint8Array): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** The guide's `test-runner.md` example, verbatim. */
export const TEST_RUNNER_MD = `---
schema: kxm.memory.v1
id: test-runner
scope: project            # agent, project, run or operator
kind: convention          # free-form label
summary: Run the test suite with npm test before every commit
provenance:
  sourceType: git
  sourceRef: docs/testing.md
authority: instruction    # instruction, evidence or promoted
confidence: verified
lifecycle: active         # only active facts are loaded
evidenceRefs: []
---
`;

/** Front matter lines for a valid fact; override or drop (`undefined`) any top-level key. */
function factFields(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    schema: "kxm.memory.v1",
    id: "use-pnpm",
    scope: "project",
    kind: "convention",
    summary: "Use pnpm, not npm, in this repository",
    provenance: "\n  sourceType: git\n  sourceRef: docs/tooling.md",
    authority: "instruction",
    confidence: "verified",
    lifecycle: "active",
    ...overrides,
  };
}

/** A memory file from {@link factFields}: `key: value` lines between `---` fences, then `body`. */
export function factText(overrides: Record<string, string | undefined> = {}, body = ""): string {
  const lines = Object.entries(factFields(overrides))
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}:${value.startsWith("\n") ? "" : " "}${value}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}

/** Writes a fact into `.kxm/memory/<name>`. */
export function putFact(root: string, name: string, overrides: Record<string, string | undefined> = {}) {
  return put(root, `.kxm/memory/${name}`, factText(overrides));
}

function checkError(caught: unknown, code: ErrorCode): Error & { code: string; status: number } {
  expect(caught, "expected a KxmError").toBeDefined();
  expect(isKxmError(caught), String(caught)).toBe(true);
  const error = caught as Error & { code: string; status: number };
  expect(error.code).toBe(code);
  expect(error.message).not.toMatch(/\n/);
  return error;
}

/** Runs `fn`, expecting a KxmError with `code` and a one-line message; returns it. */
export function expectKxmError(fn: () => unknown, code: ErrorCode): Error & { code: string; status: number } {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  return checkError(caught, code);
}

/** Awaits `promise`, expecting it to reject with a KxmError with `code`; returns it. */
export async function expectKxmRejection(
  promise: Promise<unknown>,
  code: ErrorCode,
): Promise<Error & { code: string; status: number }> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  return checkError(caught, code);
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
