import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits } from "@kxm/contract";
import { CANDIDATES_FOLDER, memoryDir, promotedSkillsDir } from "./layout.js";

interface Entry {
  /** Path relative to the group's folder, forward slashes. */
  rel: string;
  abs: string;
  symlink: boolean;
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}

// Symlinks are not followed, so a link cannot pull content from outside the folder into the hash, nor loop;
// a link counts as its target path, as Git stores it. Sockets, FIFOs and the like are not files and count for nothing.
async function collect(dir: string, prefix: string, skip: string | undefined, out: Entry[]): Promise<void> {
  for (const entry of await entriesOf(dir)) {
    const abs = join(dir, entry.name);
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== skip) await collect(abs, rel, skip, out);
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      out.push({ rel, abs, symlink: entry.isSymbolicLink() });
    }
  }
}

/** One file as the memory revision hashes it: its group, its path inside the group's folder, and its bytes. */
export interface RevisionFile {
  group: "memory" | "skill";
  /** Relative to the group's folder, forward slashes. */
  rel: string;
  bytes: Buffer;
}

function byRel(a: { rel: string }, b: { rel: string }): number {
  return compareCodeUnits(a.rel, b.rel);
}

/**
 * The revision formula over files however they were read (the work tree, or a commit): memory files first, then
 * skill files, each group sorted by code unit, each file as `<group>:<rel>\0<bytes>\0`.
 */
export function revisionOf(files: readonly RevisionFile[]): string {
  const hash = createHash("sha256");
  for (const group of ["memory", "skill"] as const) {
    for (const file of files.filter((entry) => entry.group === group).sort(byRel)) {
      hash.update(`${group}:${file.rel}\0`);
      hash.update(file.bytes);
      hash.update("\0");
    }
  }
  return `ctxrev_${hash.digest("hex")}`;
}

async function readGroup(group: "memory" | "skill", dir: string, skip?: string): Promise<RevisionFile[]> {
  const entries: Entry[] = [];
  await collect(dir, "", skip, entries);
  const files: RevisionFile[] = [];
  for (const entry of entries) {
    const bytes = entry.symlink ? Buffer.from(await readlink(entry.abs), "utf8") : await readFile(entry.abs);
    files.push({ group, rel: entry.rel, bytes });
  }
  return files;
}

/**
 * The memory revision: `ctxrev_` + SHA-256 over every file under `.kxm/memory` (skipping every folder named
 * `candidates`), then every file under `.kxm/skills/promoted`, each as `<memory|skill>:<relative path>\0<bytes>\0`.
 * The relative path is relative to the group's own folder (`memory:test-runner.md`, `skill:<id>/SKILL.md`), since
 * the prefix already names the folder; paths are sorted by code unit within each group and memory comes first.
 * Missing folders contribute nothing. Symlinks are not followed: one contributes its target path as its bytes.
 */
export async function computeMemoryRevision(root: string): Promise<string> {
  return revisionOf([
    ...(await readGroup("memory", memoryDir(root), CANDIDATES_FOLDER)),
    ...(await readGroup("skill", promotedSkillsDir(root))),
  ]);
}
