import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isKxmError, KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { checkDatabasePath, makeFolders } from "./db-path.js";
import { applyMigrations } from "./migrations.js";
import { SqliteKxmStore } from "./sqlite/store.js";
import { refusingNul } from "./text-guard.js";
import type { KxmStore } from "./types.js";

/** How long a connection waits for another's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export interface OpenStoreOptions {
  /** The database file, such as `.kxm/state/kxm.db`; its parent folders are created. */
  path: string;
}

/** The mode of the folder the store creates for its database (and of `.kxm/state`): the owner's only. */
export const STATE_DIR_MODE = 0o700;
/** The mode of the database and its `-wal` and `-shm` files: the owner's only (they hold key hashes). */
export const STATE_FILE_MODE = 0o600;
/** What the store writes to `.gitignore` in its folder, so that `git add -A` never stages the database. */
const STATE_GITIGNORE = "# Written by KXM: the hub's database (key hashes, state) is never committed.\n*\n";

/** Sets `mode` on `path` when it is looser; a file another user owns is left as it is. */
function tighten(path: string, mode: number): void {
  try {
    if ((statSync(path).mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ENOENT" && code !== "EPERM") throw error;
  }
}

/**
 * Makes the database's folder private. A folder the store creates, and the default `.kxm/state` whether new or
 * not, is the store's own: it becomes 0700 and gets a `.gitignore` of `*`. A folder the store did not create
 * elsewhere (a database put at a repository's root, say) is left alone, so that no ignore file hides other files.
 */
function prepareFolder(file: string, missing: readonly string[]): void {
  const folder = dirname(file);
  const created = !existsSync(folder);
  // Folders above the store's own get the default mode, as `mkdir -p` gives them.
  makeFolders(
    file,
    missing.filter((path) => path !== folder),
    0o777,
  );
  // Another process opening the same new file may make the folder first: it is the store's own all the same.
  if (created) ignoreExisting(() => mkdirSync(folder, { mode: STATE_DIR_MODE }));
  const own = created || (basename(folder) === "state" && basename(dirname(folder)) === ".kxm");
  if (!own) return;
  tighten(folder, STATE_DIR_MODE);
  const ignore = join(folder, ".gitignore");
  if (!existsSync(ignore))
    ignoreExisting(() => writeFileSync(ignore, STATE_GITIGNORE, { mode: 0o644, flag: "wx" }));
}

/** Runs `make`, which creates a path; a path that another process created first (EEXIST) is no failure. */
function ignoreExisting(make: () => void): void {
  try {
    make();
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
  }
}

/**
 * Creates the database file 0600 before SQLite opens it, so SQLite gives its `-wal` and `-shm` files the same mode,
 * and tightens files an earlier version left readable to others.
 */
function prepareFiles(file: string): void {
  closeSync(openSync(file, "a", STATE_FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) tighten(path, STATE_FILE_MODE);
}

/**
 * Opens (or creates) the SQLite database at `options.path` and applies the package's migrations: WAL journal,
 * foreign keys on, a 5 s busy timeout, `synchronous=NORMAL`. Several processes may open one file at once. Throws
 * `database_path_unusable`, before creating anything, when the path cannot hold a database (a NUL byte, over
 * PATH_MAX or NAME_MAX, a folder or special file, a file where a folder must be, a kernel file system such as
 * /proc, a read-only mount); `internal_error`, naming the file, when it is not a database or cannot be opened;
 * and `database_schema_newer` when a newer KXM migrated it. The
 * database, its `-wal` and `-shm` are 0600; its folder, when the store made it or it is `.kxm/state`, is 0700 and
 * holds a `.gitignore` of `*`.
 */
export function openStore(options: OpenStoreOptions): KxmStore {
  const file = resolve(options.path);
  let sqlite: Database.Database | undefined;
  try {
    prepareFolder(file, checkDatabasePath(file));
    prepareFiles(file);
    sqlite = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
    const db = drizzle({ client: sqlite });
    applyMigrations(db, sqlite, file);
    // SQLite gives them the database's mode; this only covers a file system that does not.
    for (const path of [`${file}-wal`, `${file}-shm`]) tighten(path, STATE_FILE_MODE);
    return refusingNul(new SqliteKxmStore(file, db, sqlite));
  } catch (error) {
    sqlite?.close();
    if (isKxmError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new KxmError("internal_error", `cannot open the KXM database ${file}: ${reason}`);
  }
}
