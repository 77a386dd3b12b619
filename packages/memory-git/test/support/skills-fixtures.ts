import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ErrorCode, isKxmError } from "@kxm/contract";
import { afterEach, expect } from "vitest";

const made: string[] = [];

/** A fresh temporary folder, removed after the test. */
export async function tempDir(prefix = "kxm-skills-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes `files` (relative path -> content) under `dir`, creating folders. */
export async function writeTree(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, ...path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** A SKILL.md with the given front matter lines and body. */
export function skillMarkdown(
  frontMatter: Record<string, string> = {},
  body = "# Release notes\n\nCollect merged PRs, group them by label, write CHANGELOG.md.\n",
): string {
  const fields = {
    name: "release-notes",
    description: "Draft release notes from merged pull requests",
    ...frontMatter,
  };
  const yaml = Object.entries(fields)
    .map(([key, value]) => `${key}: ${value}`)
    .join("\n");
  return `---\n${yaml}\n---\n\n${body}`;
}

/**
 * A skill source folder with SKILL.md, a script and a reference; returns its path. The folder is named after the
 * skill's `name` (as the Agent Skills format requires), inside a fresh folder of its own; `folder` overrides it.
 */
export async function skillSource(
  parent: string,
  overrides: { skill?: string; files?: Record<string, string | Uint8Array>; folder?: string } = {},
): Promise<string> {
  const named = /^name: *(\S+) *$/m.exec(overrides.skill ?? skillMarkdown())?.[1];
  const folder = overrides.folder ?? named?.replace(/^["']|["']$/g, "") ?? "release-notes";
  const dir = join(parent, `source-${Math.random().toString(16).slice(2)}`, folder);
  await writeTree(dir, {
    "SKILL.md": overrides.skill ?? skillMarkdown(),
    "scripts/collect.sh": "#!/bin/sh\ngit log --merges --oneline\n",
    "references/labels.md": "feature, fix, chore\n",
    ...overrides.files,
  });
  return dir;
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Every path below `dir` with its type and, for files, a content hash: compared before and after a refusal. */
export async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (absolute: string, prefix: string): Promise<void> => {
    let entries: string[];
    try {
      entries = await readdir(absolute);
    } catch {
      return;
    }
    for (const name of entries.sort()) {
      const path = join(absolute, name);
      const shown = `${prefix}${name}`;
      const info = await lstat(path);
      if (info.isDirectory()) {
        out.push(`${shown}/`);
        await walk(path, `${shown}/`);
      } else if (info.isSymbolicLink()) out.push(`${shown} -> ${await readlink(path)}`);
      else out.push(`${shown} ${sha256(await readFile(path))}`);
    }
  };
  await walk(dir, "");
  return out;
}

/** Awaits `promise`, expecting a one-line KxmError with this code; returns it. */
export async function expectKxmError(
  promise: Promise<unknown> | (() => unknown),
  code: ErrorCode,
): Promise<Error & { code: string; status: number }> {
  let caught: unknown;
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  expect(caught, "expected a KxmError").toBeDefined();
  expect(isKxmError(caught), String(caught)).toBe(true);
  const error = caught as Error & { code: string; status: number };
  expect(error.code).toBe(code);
  expect(error.message).not.toMatch(/\n/);
  return error;
}

export const NOW = new Date("2026-03-01T10:00:00.000Z");
export const LATER = new Date("2026-03-02T11:30:00.000Z");
