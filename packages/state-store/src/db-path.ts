import { accessSync, constants, mkdirSync, statfsSync, statSync } from "node:fs";
import { dirname, sep } from "node:path";
import { KxmError } from "@kxm/contract";

/** The longest path Linux takes (PATH_MAX, 4096 bytes, counts the terminating NUL). */
const MAX_DB_PATH_BYTES = 4_095;
/** The longest name one path component may have on common file systems (NAME_MAX). */
const MAX_DB_NAME_BYTES = 255;

// Kernel file systems that look writable (mounted rw) but hold no ordinary files: Node's recursive mkdir spins
// forever under /proc, and writes there fail or mean something else. Keys are statfs f_type magic numbers.
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x6165676c, "pstore"],
  [0xcafe4a11, "bpf"],
  [0x62656570, "configfs"],
  [0xde5e81e4, "efivarfs"],
  [0x1cd1, "devpts"],
  [0x19800202, "mqueue"],
  [0x42494e4d, "binfmt_misc"],
]);

/** How a path shows in a message: JSON-quoted, so a control character or NUL cannot break the line. */
const shown = (path: string) => JSON.stringify(path);

const unusable = (file: string, reason: string) =>
  new KxmError("database_path_unusable", `the KXM database path ${shown(file)} is unusable: ${reason}`);

const errnoOf = (error: unknown) => (error as { code?: unknown } | undefined)?.code;

/**
 * Checks, before anything is created, that `file` (absolute) can hold a SQLite database: no NUL byte, within
 * PATH_MAX and NAME_MAX, not an existing folder or special file, its nearest existing ancestor a folder on a real,
 * writable file system. Returns the folders still to make, outermost first. Throws `database_path_unusable`.
 * Every check is a bounded number of system calls, so a bad path fails at once instead of spinning.
 */
export function checkDatabasePath(file: string): string[] {
  if (file.includes("\0")) throw unusable(file, "it contains a NUL byte");
  if (Buffer.byteLength(file) > MAX_DB_PATH_BYTES)
    throw unusable(file, `it is over ${MAX_DB_PATH_BYTES} bytes (PATH_MAX)`);
  const long = file.split(sep).find((name) => Buffer.byteLength(name) > MAX_DB_NAME_BYTES);
  if (long !== undefined) throw unusable(file, `a name in it is over ${MAX_DB_NAME_BYTES} bytes (NAME_MAX)`);
  const missing: string[] = [];
  let path = file;
  for (;;) {
    let kind: "file" | "folder" | "other" | undefined;
    try {
      const stat = statSync(path);
      kind = stat.isFile() ? "file" : stat.isDirectory() ? "folder" : "other";
    } catch (error) {
      const code = errnoOf(error);
      // ENOTDIR: something above is a file; keep climbing to name it.
      if (code !== "ENOENT" && code !== "ENOTDIR")
        throw unusable(file, `cannot inspect ${shown(path)} (${code})`);
    }
    if (path === file && kind !== undefined && kind !== "file")
      throw unusable(file, kind === "folder" ? "it is a folder" : "it is not a regular file");
    if (path !== file && kind !== undefined && kind !== "folder")
      throw unusable(file, `${shown(path)} is not a folder`);
    if (kind !== undefined) break;
    const parent = dirname(path);
    if (parent === path) throw unusable(file, "no folder above it exists");
    if (path !== file) missing.unshift(path);
    path = parent;
  }
  const folder = path === file ? dirname(file) : path;
  const fsType = PSEUDO_FILE_SYSTEMS.get(statfsSync(folder).type);
  if (fsType !== undefined) throw unusable(file, `${shown(folder)} is on the kernel's ${fsType} file system`);
  // Write access as root ignores permission bits but not a read-only mount (EROFS).
  const target = path === file ? file : folder;
  try {
    accessSync(target, constants.W_OK);
  } catch (error) {
    throw unusable(file, `${shown(target)} is not writable (${errnoOf(error)})`);
  }
  return missing;
}

/** Makes `folders` one at a time (never Node's recursive mkdir); one another process made first is no failure. */
export function makeFolders(file: string, folders: readonly string[], mode: number): void {
  for (const folder of folders) {
    try {
      mkdirSync(folder, { mode });
    } catch (error) {
      const code = errnoOf(error);
      if (code !== "EEXIST") throw unusable(file, `cannot make the folder ${shown(folder)} (${code})`);
    }
  }
}
