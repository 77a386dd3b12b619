import { createHash, type Hash } from "node:crypto";
import type { Dirent } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

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

async function hashGroup(hash: Hash, group: "memory" | "skill", dir: string, skip?: string): Promise<void> {
  const entries: Entry[] = [];
  await collect(dir, "", skip, entries);
  entries.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  for (const entry of entries) {
    const bytes = entry.symlink ? Buffer.from(await readlink(entry.abs), "utf8") : await readFile(entry.abs);
    hash.update(`${group}:${entry.rel}\0`);
    hash.update(bytes);
    hash.update("\0");
  }
}

/**
 * The memory revision: `ctxrev_` + SHA-256 over every file under `.kxm/memory` (skipping every folder named
 * `candidates`), then every file under `.kxm/skills/promoted`, each as `<memory|skill>:<relative path>\0<bytes>\0`.
 * The relative path is relative to the group's own folder (`memory:test-runner.md`, `skill:<id>/SKILL.md`), since
 * the prefix already names the folder; paths are sorted by code unit within each group and memory comes first.
 * Missing folders contribute nothing. Symlinks are not followed: one contributes its target path as its bytes.
 */
export async function computeMemoryRevision(root: string): Promise<string> {
  const hash = createHash("sha256");
  await hashGroup(hash, "memory", join(root, ".kxm", "memory"), "candidates");
  await hashGroup(hash, "skill", join(root, ".kxm", "skills", "promoted"));
  return `ctxrev_${hash.digest("hex")}`;
}
