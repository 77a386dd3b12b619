import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { tempDir as sharedTempDir, writeFiles } from "@kxm/test-support";

// The skill tests' fixtures. The writers other packages' tests use too live in @kxm/test-support.
export { expectKxmRejection, writeFiles } from "@kxm/test-support";

/** A fresh temporary folder, removed after the test. */
export function tempDir(prefix = "kxm-skills-"): Promise<string> {
  return sharedTempDir(prefix);
}

/** A fresh project root and a fresh work folder to write skill sources in. */
export async function skillFolders(): Promise<{ root: string; work: string }> {
  const root = await tempDir();
  return { root, work: await tempDir("kxm-skill-src-") };
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
  await writeFiles(dir, {
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

export const NOW = new Date("2026-03-01T10:00:00.000Z");
export const LATER = new Date("2026-03-02T11:30:00.000Z");
