import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits } from "@kxm/contract";

// What the distillation agent changed: the project's work tree before and after it ran, as git sees it. Every path
// `git status` reports (modified, staged, deleted, untracked and ignored files, with --untracked-files=all) gets a
// signature: its status letters and a SHA-256 of its bytes (a link: of its target). A folder git reports whole (an
// ignored folder such as node_modules/) is walked, each file signed by size, mode and modification time, so a large
// ignored tree costs a listing, not a read. A commit made meanwhile adds the paths it changed. A path whose
// signature differs between the two snapshots, or that is in only one, was changed.

/** A project-relative path (forward slashes) and its signature. */
export interface Worktree {
  head: string | null;
  files: Map<string, string>;
}

const GIT_TIMEOUT_MS = 30_000;
const MAX_OUTPUT = 256 * 1024 * 1024;

function git(root: string, args: readonly string[], binary: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((done) => {
    execFile(
      binary,
      ["-C", root, ...args],
      { timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT },
      (error, stdout) => done({ ok: error === null, out: String(stdout) }),
    );
  });
}

async function contentSignature(path: string): Promise<string> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return `link:${await readlink(path)}`;
    if (!info.isFile()) return info.isDirectory() ? "folder" : "other";
    return `sha256:${createHash("sha256")
      .update(await readFile(path))
      .digest("hex")}`;
  } catch {
    return "missing";
  }
}

async function walk(root: string, rel: string, out: Map<string, string>): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    out.set(rel, "missing");
    return;
  }
  for (const entry of entries) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory()) await walk(root, path, out);
    else {
      const info = await lstat(join(root, path)).catch(() => undefined);
      out.set(path, info === undefined ? "missing" : `stat:${info.size}:${info.mode}:${info.mtimeMs}`);
    }
  }
}

/**
 * The work tree under `root` as git reports it, less the paths `skip` says the runner writes meanwhile; undefined
 * when `root` is not in a git repository (or git cannot be run).
 */
export async function snapshotWorktree(
  root: string,
  skip: (path: string) => boolean,
  binary = "git",
): Promise<Worktree | undefined> {
  const prefixed = await git(root, ["rev-parse", "--show-prefix"], binary);
  if (!prefixed.ok) return undefined;
  const prefix = prefixed.out.replace(/\n$/, "");
  const head = await git(root, ["rev-parse", "--verify", "-q", "HEAD"], binary);
  const status = await git(
    root,
    [
      "status",
      "--porcelain=v1",
      "-z",
      "--ignored=matching",
      "--untracked-files=all",
      "--no-renames",
      "--",
      ".",
    ],
    binary,
  );
  if (!status.ok) return undefined;
  const files = new Map<string, string>();
  for (const field of status.out.split("\0")) {
    if (field.length < 4) continue;
    const letters = field.slice(0, 2);
    let path = field.slice(3);
    if (!path.startsWith(prefix)) continue;
    path = path.slice(prefix.length);
    if (path.endsWith("/")) {
      const folder = path.slice(0, -1);
      if (!skip(`${folder}/`)) await walk(root, folder, files);
      continue;
    }
    if (!skip(path)) files.set(path, `${letters}:${await contentSignature(join(root, path))}`);
  }
  for (const path of [...files.keys()]) if (skip(path)) files.delete(path);
  return { head: head.ok ? head.out.trim() : null, files };
}

/** The paths changed between two snapshots of the same work tree, sorted; commits made between them included. */
export async function changedPaths(
  root: string,
  before: Worktree,
  after: Worktree,
  skip: (path: string) => boolean,
  binary = "git",
): Promise<string[]> {
  const changed = new Set<string>();
  for (const path of new Set([...before.files.keys(), ...after.files.keys()])) {
    if (before.files.get(path) !== after.files.get(path)) changed.add(path);
  }
  if (before.head !== after.head) {
    const range = before.head === null ? [after.head ?? "HEAD"] : [before.head, after.head ?? "HEAD"];
    const args =
      before.head === null
        ? ["show", "--name-only", "-z", "--format=", "--no-renames", ...range]
        : ["diff", "--name-only", "-z", "--no-renames", ...range];
    const prefixed = await git(root, ["rev-parse", "--show-prefix"], binary);
    const prefix = prefixed.ok ? prefixed.out.replace(/\n$/, "") : "";
    const diff = await git(root, args, binary);
    // Moving HEAD (a commit, a reset) is itself a write outside any allowlist.
    changed.add(`(HEAD moved: ${before.head ?? "none"} -> ${after.head ?? "none"})`);
    for (const path of diff.out.split("\0")) {
      if (path === "" || !path.startsWith(prefix)) continue;
      const rel = path.slice(prefix.length);
      if (!skip(rel)) changed.add(rel);
    }
  }
  return [...changed].sort(compareCodeUnits);
}
