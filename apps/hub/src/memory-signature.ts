// Stat signatures of a checkout's memory folders and git files: when they are equal, nothing needs re-reading.
import { type BigIntStats, type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { authoredMemoryDirs, KXM_PATHS, kxmDir } from "@kxm/memory-git";

/** A file changed less than this long ago may change again within its timestamp's resolution. */
const RACY_MS = 3_000;

/**
 * A stat signature of everything under the checkout's `.kxm/memory` and `.kxm/skills/promoted` (a superset of
 * what the memory revision hashes): each entry's path, inode, size, and modification and change times, links not
 * followed. Equal signatures mean the revision cannot have changed, so the hash is skipped. Undefined, meaning
 * "hash to be sure", when an entry was modified within the last {@link RACY_MS} (a write in the same timestamp
 * tick as the signature would not show) or a folder cannot be read. Synchronous on purpose: a few stats cost less
 * than the thread-pool round trips of asynchronous ones.
 */
export function memorySignature(root: string, nowMs = Date.now()): string | undefined {
  const parts: string[] = [];
  const racyBefore = BigInt(Math.floor(nowMs) - RACY_MS) * 1_000_000n;
  const entry = (path: string): BigIntStats | undefined => {
    const stats = lstatOrUndefined(path);
    if (stats === undefined) parts.push(`${path}\0-`);
    else parts.push(`${path}\0${stats.ino}\0${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}`);
    return stats;
  };
  const walk = (dir: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const name of entries.map((dirent) => dirent.name).sort()) {
      const path = join(dir, name);
      const stats = entry(path);
      if (stats === undefined) continue;
      if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return false;
      if (stats.isDirectory() && !walk(path)) return false;
    }
    return true;
  };
  for (const dir of authoredMemoryDirs(root)) {
    const stats = entry(dir);
    if (stats === undefined) continue;
    if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return undefined;
    if (stats.isDirectory() && !walk(dir)) return undefined;
  }
  return parts.join("\n");
}

/**
 * A path's stats, links not followed, or undefined when there is nothing to stat: missing, or below something that
 * is no longer a folder (ENOTDIR: a checkout that became a file since it was registered holds no memory).
 */
function lstatOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** One file's stat as a signature part; undefined when it changed too recently to trust. */
function statPart(path: string, racyBefore: bigint): string | undefined {
  const stats = lstatOrUndefined(path);
  if (stats === undefined) return `${path}\0-`;
  if (stats.mtimeNs >= racyBefore || stats.ctimeNs >= racyBefore) return undefined;
  return `${path}\0${stats.ino}\0${stats.size}\0${stats.mtimeNs}\0${stats.ctimeNs}`;
}

/**
 * The stat signature of what a checkout's served memory depends on: {@link memorySignature} (the work tree, for
 * what is withheld), the `.kxm/memory-checks.json` record, and the git files a commit, a checkout, an amend, a
 * reset or a staging rewrites: `HEAD` and its text, the branch file it names, `packed-refs` and the index. Without
 * a repository, the checkout's `.git` entry stands in, so a `git init` there is noticed. Undefined when any part is
 * undefined.
 */
export function authoredSignature(
  root: string,
  dirs: { gitDir: string; commonDir: string } | undefined,
  nowMs = Date.now(),
): string | undefined {
  const memory = memorySignature(root, nowMs);
  if (memory === undefined) return undefined;
  const racyBefore = BigInt(Math.floor(nowMs) - RACY_MS) * 1_000_000n;
  // The `.kxm` entry itself, so that one replaced by a file or a dangling link is noticed even without memory.
  // The check record too: its work-tree state is a `memory_withheld` gap, like a memory file's.
  const paths: string[] = [kxmDir(root), join(root, KXM_PATHS.memoryChecks)];
  let head = "";
  if (dirs === undefined) paths.push(join(root, ".git"));
  else {
    try {
      head = readFileSync(join(dirs.gitDir, "HEAD"), "utf8");
    } catch {
      return undefined;
    }
    paths.push(join(dirs.gitDir, "HEAD"), join(dirs.gitDir, "index"), join(dirs.commonDir, "packed-refs"));
    const ref = /^ref: (refs\/\S+)\s*$/.exec(head)?.[1];
    if (ref !== undefined) paths.push(join(dirs.commonDir, ref), join(dirs.gitDir, ref));
  }
  const parts = [memory, head];
  for (const path of paths) {
    const part = statPart(path, racyBefore);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return parts.join("\n");
}
