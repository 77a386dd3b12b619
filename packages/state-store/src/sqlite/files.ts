// The file handling backup and restore share: where a copy may be written, a temporary file beside it, and
// durable renames. A refusal is decided before anything is written, so a refused command leaves no file behind.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, realpathSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { STATE_FILE_MODE } from "../open.js";

/** The files SQLite keeps beside a database in WAL mode. */
export const SIDE_FILES = ["-wal", "-shm"] as const;

/** The file's status, or undefined when nothing is there (ENOENT), or a file stands where a folder should (ENOTDIR). */
export function statOrNone(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

export const exists = (path: string) => statOrNone(path) !== undefined;

/** SQLite's codes for a file that is not a database or is damaged (extended codes included). */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT"));
}

/** `path` with its folder's symbolic links resolved (the file itself need not exist). */
function canonical(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/** Whether `a` and `b` name the same file: the same path once links are resolved, or the same inode. */
function sameFile(a: string, b: string): boolean {
  if (canonical(a) === canonical(b)) return true;
  const left = statOrNone(a);
  const right = statOrNone(b);
  return left !== undefined && right !== undefined && left.dev === right.dev && left.ino === right.ino;
}

/** Refuses `target` when it is the database `live` or one of its -wal and -shm files. */
export function refuseLiveFile(target: string, live: string, what: string): void {
  for (const suffix of ["", ...SIDE_FILES]) {
    if (sameFile(target, `${live}${suffix}`)) {
      throw new KxmError(
        "backup_refused",
        `${what} ${target} is the database ${live}${suffix === "" ? "" : ` (its ${suffix} file)`} itself`,
      );
    }
  }
}

/**
 * Refuses a destination that cannot take a new file: its folder is missing or is a file, it is a folder, or it
 * exists and `force` is off.
 */
export function refuseDestination(target: string, force: boolean, what: string): void {
  const folder = dirname(target);
  let folderInfo: ReturnType<typeof statSync>;
  try {
    folderInfo = statSync(folder);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOTDIR")
      throw new KxmError("backup_refused", `${what} ${target} is under a file, not a folder`);
    throw new KxmError("backup_refused", `${what} ${target}: its folder ${folder} does not exist`);
  }
  if (!folderInfo?.isDirectory()) {
    throw new KxmError("backup_refused", `${what} ${target} is under a file, not a folder`);
  }
  const info = statOrNone(target);
  if (info?.isDirectory()) throw new KxmError("backup_refused", `${what} ${target} is a folder`);
  if (info !== undefined && !force) {
    throw new KxmError("backup_refused", `${what} ${target} already exists; --force replaces it`);
  }
}

/** A new, empty, 0600 file beside `target` for the copy to be written to; renamed into place once verified. */
export function temporaryBeside(target: string): string {
  const path = join(
    dirname(target),
    `.${basename(target)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  closeSync(openSync(path, "wx", STATE_FILE_MODE));
  return path;
}

/** Removes a temporary copy and anything SQLite left beside it. */
export function removeTemporary(path: string): void {
  for (const suffix of ["", "-journal", ...SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}

/** Flushes a file, or a folder's entries after a rename, to disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a finished copy a single self-contained file: rollback journal mode, so no -wal is needed beside it
 * (`openStore` puts a restored file back in WAL mode), then flushed to disk.
 */
export function settleCopy(path: string, source: string): void {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(path, { fileMustExist: true });
    sqlite.pragma("journal_mode = DELETE");
  } catch (error) {
    // The backup API copies pages as they are: a copy SQLite cannot read means the source was damaged.
    if (error instanceof Error && error.name === "SqliteError") {
      throw new KxmError("database_damaged", `the copy of ${source} cannot be read: ${error.message}`);
    }
    throw error;
  } finally {
    sqlite?.close();
  }
  for (const suffix of SIDE_FILES) {
    if (exists(`${path}${suffix}`)) throw new Error(`${path}${suffix} remained after leaving WAL mode`);
  }
  fsyncPath(path);
}
