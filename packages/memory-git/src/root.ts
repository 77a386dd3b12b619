import { stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import { KXM_DIR } from "./layout.js";

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The project root for `start`: the nearest folder, walking up, that holds `.kxm/` or `.git` (a `.git` file counts,
 * for worktrees and submodules). Refused with `project_root_not_found` at the file system's root.
 */
export async function findProjectRoot(start: string): Promise<string> {
  let current = resolve(start);
  for (;;) {
    if ((await isDirectory(join(current, KXM_DIR))) || (await exists(join(current, ".git")))) return current;
    const parent = dirname(current);
    if (parent === current) {
      throw new KxmError(
        "project_root_not_found",
        "no folder holding .kxm/ or .git above the current folder",
      );
    }
    current = parent;
  }
}

/**
 * The project id a checkout goes by when none is given (`kxm run`, and `kxm memory brief` and `sync` asking a hub):
 * its root folder's name, made a valid project id (other characters become `-`, leading dots and dashes go, at
 * most 128 characters), or `project` when nothing is left.
 */
export function defaultProjectId(root: string): string {
  const name = basename(root)
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[.-]+/, "");
  return name.slice(0, 128) || "project";
}
