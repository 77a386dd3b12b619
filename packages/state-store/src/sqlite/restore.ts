// `restoreSqliteStore`: puts a verified backup in place of a store's database, keeping the database it replaces.
import { linkSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import type { RestoreResult } from "../maintenance.js";
import { STATE_DIR_MODE } from "../open.js";
import { checkSqliteStore } from "./check.js";
import {
  exists,
  fsyncPath,
  isDamage,
  refuseDestination,
  refuseLiveFile,
  removeTemporary,
  SIDE_FILES,
  settleCopy,
  temporaryBeside,
} from "./files.js";

export interface RestoreOptions {
  /** The backup to restore. */
  readonly backup: string;
  /** The database to replace (or create). */
  readonly to: string;
  /** Replace a database already at `to` (it is kept as `<to>.before-restore-<stamp>`). */
  readonly force?: boolean;
  /** Names the kept file; the store reads no clock. */
  readonly now: Date;
}

/** `20261202T013045Z`: sortable, and safe in a file name everywhere. */
const stamp = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");

/** A name beside `file` that nothing holds yet. */
function keptName(file: string, now: Date): string {
  const base = `${file}.before-restore-${stamp(now)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (![name, ...SIDE_FILES.map((suffix) => `${name}${suffix}`)].some(exists)) return name;
  }
}

/**
 * Takes the database at `file` for the swap, or refuses: every connection to a WAL database holds a shared lock
 * on the file for as long as it is open, so leaving WAL mode (which needs the exclusive lock, and no wait is
 * allowed) fails while any hub, or any other process, has it open. It succeeds only when none does; it then
 * checkpoints the WAL into the file and deletes the -wal and -shm (data a killed hub left there is kept), and the
 * connection keeps the lock (exclusive locking mode) until the caller closes it after the swap.
 */
function takeExclusively(file: string): Database.Database | undefined {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(file, { fileMustExist: true, timeout: 0 });
    sqlite.pragma("locking_mode = EXCLUSIVE");
    sqlite.pragma("journal_mode = DELETE");
    sqlite.exec("BEGIN EXCLUSIVE; COMMIT");
    return sqlite;
  } catch (error) {
    sqlite?.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) {
      throw new KxmError(
        "database_in_use",
        `${file} is open in another process (a serving hub?); stop it, then restore`,
      );
    }
    // Not a database, or too damaged to read: no hub can be serving it. It is kept as it is, side files and all.
    if (isDamage(error)) return undefined;
    throw error;
  }
}

/**
 * Restores the backup at `options.backup` as the database `options.to`. The backup is checked first, against its
 * checksum manifest too when one is beside it (`database_damaged`, `database_schema_newer`: nothing changes; a
 * backup without a manifest is restored, and `backupChecksum` says `missing` so the caller can warn), then copied with SQLite's backup API to a
 * temporary 0600 file beside `to` and checked again. A database already at `to` needs `force`; it is taken with
 * an exclusive lock (`database_in_use` while any process, such as a serving hub, has it open), its WAL folded in
 * and its -wal and -shm removed, then renamed to `<to>.before-restore-<stamp>` and the copy renamed into its place.
 * A missing folder of `to` is created 0700. Refusals (`backup_refused`, `not_found`) write nothing.
 */
export async function restoreSqliteStore(options: RestoreOptions): Promise<RestoreResult> {
  const backup = resolve(options.backup);
  const to = resolve(options.to);
  if (!statSync(backup, { throwIfNoEntry: false })?.isFile())
    throw new KxmError("not_found", `no backup at ${backup}`);
  refuseLiveFile(backup, to, "the backup");
  // The manifest, when there is one, is verified here: a mismatch is a problem like any other damage.
  const verified = checkSqliteStore(backup);
  const problem = verified.problems[0];
  if (problem !== undefined)
    throw new KxmError(problem.code, `the backup failed its check: ${problem.message}`);
  const backupChecksum = verified.checksum ?? { state: "missing", manifest: `${backup}.sha256` };
  try {
    mkdirSync(dirname(to), { recursive: true, mode: STATE_DIR_MODE });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ENOTDIR" && code !== "EEXIST") throw error;
  }
  refuseDestination(to, options.force === true, "the database");
  const replacing = exists(to);
  if (!replacing) {
    const orphan = SIDE_FILES.map((suffix) => `${to}${suffix}`).find(exists);
    // SQLite would replay a -wal left without its database onto the restored file.
    if (orphan !== undefined)
      throw new KxmError("backup_refused", `${orphan} exists without its database; move it away first`);
  }
  const temporary = temporaryBeside(to);
  try {
    const source = new Database(backup, { readonly: true, fileMustExist: true });
    try {
      await source.backup(temporary, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    settleCopy(temporary, backup);
    const check = checkSqliteStore(temporary, { noChecksum: true });
    const copyProblem = check.problems[0];
    if (copyProblem !== undefined)
      throw new KxmError(copyProblem.code, `the restored copy failed its check: ${copyProblem.message}`);
    if (!replacing) {
      linkSync(temporary, to);
      rmSync(temporary);
      fsyncPath(dirname(to));
      return { file: to, keptAs: undefined, check: { ...check, file: to }, backupChecksum };
    }
    const lock = takeExclusively(to);
    const keptAs = keptName(to, options.now);
    try {
      renameSync(to, keptAs);
      // A damaged database kept as it was keeps its side files beside it, under its new name.
      for (const suffix of SIDE_FILES)
        if (exists(`${to}${suffix}`)) renameSync(`${to}${suffix}`, `${keptAs}${suffix}`);
      renameSync(temporary, to);
      fsyncPath(dirname(to));
    } finally {
      lock?.close();
    }
    return { file: to, keptAs, check: { ...check, file: to }, backupChecksum };
  } finally {
    removeTemporary(temporary);
  }
}
