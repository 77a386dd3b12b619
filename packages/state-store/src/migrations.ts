import { fileURLToPath } from "node:url";
import { KxmError } from "@kxm/contract";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { readMigrationFiles } from "drizzle-orm/migrator";

/** The committed migrations, beside `src/` and `dist/` alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));

/** The migrations this build knows, oldest first: drizzle's `folderMillis` (its `created_at`) and SQL hash. */
export function knownMigrations(): { millis: number; hash: string }[] {
  return readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })
    .map((migration) => ({ millis: migration.folderMillis, hash: migration.hash }))
    .sort((a, b) => a.millis - b.millis);
}

/** drizzle's record of applied migrations. */
export const MIGRATIONS_TABLE = "__drizzle_migrations";
const ATTEMPTS = 6;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The SQLite error under drizzle's wrapper (`DrizzleQueryError` keeps it as `cause`). */
function sqliteCause(error: unknown): { code?: unknown; message: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string") return { code, message: current.message };
    current = current.cause;
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

/**
 * The failures of losing a race with another process migrating the same file: its tables appeared after this
 * connection's snapshot (`SQLITE_BUSY_SNAPSHOT`), or this connection saw them only once it tried to create them.
 * A plain `SQLITE_BUSY` means the lock was held past the busy timeout: not worth another wait.
 */
function lostMigrationRace(error: unknown): boolean {
  const cause = sqliteCause(error);
  return cause.code === "SQLITE_BUSY_SNAPSHOT" || /already exists/.test(cause.message);
}

/** The newest migration recorded in the database (drizzle's `created_at`), or undefined for a fresh file. */
function lastAppliedMillis(sqlite: Database.Database): number | undefined {
  const table = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name = ?")
    .get(MIGRATIONS_TABLE);
  if (table === undefined) return undefined;
  const row = sqlite.prepare(`select max(created_at) as last from ${MIGRATIONS_TABLE}`).get() as {
    last: number | string | null;
  };
  return row.last === null ? undefined : Number(row.last);
}

/**
 * Applies the committed migrations that the database lacks, with drizzle's `migrate()`. Refuses a database that a
 * newer version of this package migrated (its last migration is newer than any this version knows). Another
 * process may be migrating the same fresh file at the same moment: drizzle reads the applied migrations before its
 * (deferred) transaction, so the loser fails on a stale snapshot or on a table the winner created; the whole step
 * is then retried, and the retry finds nothing to do.
 */
export function applyMigrations(db: BetterSQLite3Database, sqlite: Database.Database, file: string): void {
  const newestKnown = Math.max(0, ...knownMigrations().map((migration) => migration.millis));
  const applied = lastAppliedMillis(sqlite);
  if (applied !== undefined && applied > newestKnown) {
    throw new KxmError(
      "database_schema_newer",
      `database ${file} has a schema newer than this version of @kxm/state-store knows ` +
        `(migration ${applied} > ${newestKnown}); upgrade KXM to open it`,
    );
  }
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || !lostMigrationRace(error)) {
        throw new KxmError(
          "internal_error",
          `could not apply schema migrations to ${file}: ${sqliteCause(error).message}`,
        );
      }
      sleepSync(20 * attempt);
    }
  }
}
