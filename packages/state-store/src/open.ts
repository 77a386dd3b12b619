import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isKxmError, KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrations.js";
import { SqliteKxmStore } from "./sqlite/store.js";
import type { KxmStore } from "./types.js";

/** How long a connection waits for another's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export interface OpenStoreOptions {
  /** The database file, such as `.kxm/state/kxm.db`; its parent folders are created. */
  path: string;
}

/**
 * Opens (or creates) the SQLite database at `options.path` and applies the package's migrations: WAL journal,
 * foreign keys on, a 5 s busy timeout, `synchronous=NORMAL`. Several processes may open one file at once. Throws
 * `internal_error`, naming the file, when it is not a database, cannot be opened, or holds a newer schema.
 */
export function openStore(options: OpenStoreOptions): KxmStore {
  const file = resolve(options.path);
  let sqlite: Database.Database | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    sqlite = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
    const db = drizzle({ client: sqlite });
    applyMigrations(db, sqlite, file);
    return new SqliteKxmStore(file, db, sqlite);
  } catch (error) {
    sqlite?.close();
    if (isKxmError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new KxmError("internal_error", `cannot open the KXM database ${file}: ${reason}`);
  }
}
