import { lstat, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { KxmError } from "@kxm/contract";

/** An instruction file that exists at the project root, resolved to the file that will be written. */
export interface SyncTarget {
  /** Its name at the root: AGENTS.md, CLAUDE.md or GEMINI.md. */
  file: string;
  /** The real path written (a symlink's target). */
  path: string;
  text: string;
}

function refused(file: string, problem: string): KxmError {
  return new KxmError("memory_sync_refused", `${file} ${problem}; wrote no file.`);
}

async function present(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

// A symlink is written through (the common CLAUDE.md -> AGENTS.md link keeps working), but only when it resolves
// to a regular file inside the project: sync must never write outside the checkout nor create a file.
async function resolveTarget(realRoot: string, root: string, file: string): Promise<string> {
  let path: string;
  try {
    path = await realpath(join(root, file));
  } catch {
    throw refused(file, "is a symlink that does not resolve to a file");
  }
  if (!isInside(realRoot, path)) throw refused(file, "is a symlink to a file outside the project");
  if (!(await stat(path)).isFile()) throw refused(file, "is not a regular file");
  return path;
}

// Text is decoded strictly: a file that is not UTF-8 could not be written back byte for byte outside the block.
function decode(file: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw refused(file, "is not valid UTF-8");
  }
}

/**
 * The files of `names` that exist at `root` (a dangling symlink counts as existing, and is refused), in the given
 * order, each resolved and read. Throws `memory_sync_refused` for one that cannot be synced safely.
 */
export async function readSyncTargets(root: string, names: readonly string[]): Promise<SyncTarget[]> {
  const realRoot = await realpath(root);
  const targets: SyncTarget[] = [];
  for (const file of names) {
    if (!(await present(join(root, file)))) continue;
    const path = await resolveTarget(realRoot, root, file);
    targets.push({ file, path, text: decode(file, await readFile(path)) });
  }
  return targets;
}
