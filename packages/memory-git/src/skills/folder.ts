import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { METADATA_FILE } from "./metadata.js";

/** Per-file and per-skill limits: a skill is instructions and a few helpers, not a data set. */
export const SKILL_FOLDER_LIMITS = {
  fileBytes: 1024 * 1024,
  totalBytes: 10 * 1024 * 1024,
  files: 1_000,
  depth: 16,
} as const;

/** One file of a skill folder, read whole so that what is hashed is exactly what is written. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
  sha256: string;
  executable: boolean;
}

/** Something below a skill folder that is not a directory. */
export interface FolderEntry {
  path: string;
  kind: "file" | "symlink" | "other";
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is escaped.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A path as it may appear in a one-line message: control characters escaped. */
export function displayPath(path: string): string {
  return path.replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The `code` of a Node.js system error, such as `ENOENT`. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/** True when `path` does not exist (as opposed to existing but being unreadable). */
export function isMissing(error: unknown): boolean {
  return errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR";
}

/**
 * Every entry below `dir` that is not a directory, with `/`-separated relative paths sorted by code unit.
 * Symbolic links are reported, never followed. Throws `skill_invalid` past the file-count or depth limit.
 */
export async function listFolder(dir: string, options: { skipGit: boolean }): Promise<FolderEntry[]> {
  const out: FolderEntry[] = [];
  const walk = async (absolute: string, prefix: string, depth: number): Promise<void> => {
    if (depth > SKILL_FOLDER_LIMITS.depth) {
      throw new KxmError(
        "skill_invalid",
        `${displayPath(prefix)}: nested deeper than ${SKILL_FOLDER_LIMITS.depth}`,
      );
    }
    for (const entry of await readdir(absolute, { withFileTypes: true })) {
      if (options.skipGit && entry.name === ".git") continue;
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(join(absolute, entry.name), path, depth + 1);
        continue;
      }
      out.push({ path, kind: entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other" });
      if (out.length > SKILL_FOLDER_LIMITS.files) {
        throw new KxmError("skill_invalid", `skill folder: more than ${SKILL_FOLDER_LIMITS.files} files`);
      }
    }
  };
  await walk(dir, "", 0);
  return out.sort((a, b) => compareCodeUnits(a.path, b.path));
}

// O_NOFOLLOW refuses a file swapped for a link after the listing; O_NONBLOCK keeps a FIFO from blocking the open.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Reads a regular file of at most `maxBytes`, or says in a few words why not. Never follows a final link. */
export async function readRegularFile(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; executable: boolean } | { problem: string }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return { problem: "is missing" };
    if (errorCode(error) === "ELOOP") return { problem: "is a symbolic link" };
    return { problem: `cannot be read (${errorCode(error) ?? "error"})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { problem: "is not a regular file" };
    if (info.size > maxBytes) return { problem: `is over ${maxBytes} bytes` };
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) return { problem: `is over ${maxBytes} bytes` };
    return { bytes, executable: (info.mode & 0o111) !== 0 };
  } finally {
    await handle.close();
  }
}

function invalid(message: string): KxmError {
  return new KxmError("skill_invalid", message);
}

/**
 * Reads a folder to propose: regular files only, `.git` skipped, each at most 1 MiB, 10 MiB and 1,000 files in
 * all. A link, a special file, a name KXM cannot store and a top-level `metadata.json` (KXM's own) are refused
 * with `skill_invalid`, naming the path.
 */
export async function readSkillSource(sourceDir: string): Promise<SkillFile[]> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(sourceDir);
  } catch {
    throw invalid("skill folder: does not exist");
  }
  if (!info.isDirectory()) throw invalid("skill folder: is not a folder");
  const files: SkillFile[] = [];
  let total = 0;
  for (const entry of await listFolder(sourceDir, { skipGit: true })) {
    const shown = displayPath(entry.path);
    if (entry.path === METADATA_FILE) throw invalid(`${shown}: is reserved for KXM's record of the skill`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
    if (/[\\\u0000-\u001f\u007f]/.test(entry.path) || entry.path === "__proto__") {
      throw invalid(`${shown}: the file name has a backslash or control character`);
    }
    if (entry.kind === "symlink")
      throw invalid(`${shown}: is a symbolic link; a skill holds regular files only`);
    if (entry.kind === "other") throw invalid(`${shown}: is not a regular file`);
    const read = await readRegularFile(
      join(sourceDir, ...entry.path.split("/")),
      SKILL_FOLDER_LIMITS.fileBytes,
    );
    if ("problem" in read) throw invalid(`${shown}: ${read.problem}`);
    total += read.bytes.length;
    if (total > SKILL_FOLDER_LIMITS.totalBytes) {
      throw invalid(`skill folder: over ${SKILL_FOLDER_LIMITS.totalBytes} bytes in all`);
    }
    files.push({
      path: entry.path,
      bytes: read.bytes,
      sha256: sha256Hex(read.bytes),
      executable: read.executable,
    });
  }
  return files;
}

async function writeDurably(path: string, data: Uint8Array | string, mode: number): Promise<void> {
  const handle = await open(path, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a skill's record folder whole or not at all: metadata.json and the skill's files, under a folder named
 * `name` (`<parent>/<id>/metadata.json`, `<parent>/<id>/<name>/SKILL.md`, ...), go into a temporary folder beside
 * the target, which is then renamed to `<parent>/<id>`. A failure removes the temporary folder; an existing target
 * makes the rename fail, reported as `skill_exists`. Readers skip dot-named folders, so a temporary folder a
 * crash leaves behind is never read as a skill.
 */
export async function writeSkillFolder(
  parent: string,
  id: string,
  name: string,
  files: readonly SkillFile[],
  metadataText: string,
): Promise<void> {
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.tmp-${id}-${randomBytes(6).toString("hex")}`);
  await mkdir(temp);
  let renaming = false;
  try {
    for (const file of files) {
      const target = join(temp, name, ...file.path.split("/"));
      await mkdir(dirname(target), { recursive: true });
      await writeDurably(target, file.bytes, file.executable ? 0o755 : 0o644);
    }
    await writeDurably(join(temp, METADATA_FILE), metadataText, 0o644);
    renaming = true;
    await rename(temp, join(parent, id));
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    const code = errorCode(error);
    if (renaming && (code === "ENOTEMPTY" || code === "EEXIST")) {
      throw new KxmError("skill_exists", `skill ${id} already exists`);
    }
    throw error;
  }
}
