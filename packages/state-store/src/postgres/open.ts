import { fileURLToPath } from "node:url";
import { isKxmError, KxmError } from "@kxm/contract";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { refusingNul } from "../text-guard.js";
import type { KxmStore } from "../types.js";
import { pgCause } from "./db.js";
import { PostgresKxmStore } from "./store.js";
import { parseDatabaseUrl, redactDatabaseUrl } from "./url.js";

/** The committed PostgreSQL migrations, beside `src/` and `dist/` alike. */
const PG_MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle-pg", import.meta.url));

/** The advisory lock key migrations hold, so hubs starting at once migrate one at a time ("kxm" + "migr"). */
const MIGRATION_LOCK = 0x6b786d_6d6967n;

export interface OpenPostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`); query parameters go to postgres.js. */
  url: string;
  /** The most connections the pool opens (default 10). */
  maxConnections?: number;
}

/** A connection that never reached a server: refused, unresolvable, timed out or reset. */
const NETWORK_FAILURE = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|CONNECT_TIMEOUT|EHOSTUNREACH/;

/** Every code and message down the error's causes (drizzle wraps postgres.js's error, which wraps the socket's). */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    parts.push(String((current as Error & { code?: unknown }).code ?? ""), current.message);
    current = current.cause;
  }
  return parts.join(" ");
}

/** The message of the innermost cause: the socket's or the server's own words. */
function deepestMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  return message;
}

/** The migrations this build knows, oldest first (drizzle's `folderMillis`). */
function newestKnownMigration(): number {
  return Math.max(
    0,
    ...readMigrationFiles({ migrationsFolder: PG_MIGRATIONS_FOLDER }).map((m) => m.folderMillis),
  );
}

/**
 * Applies the committed migrations on one connection holding a session advisory lock, so several hubs starting on
 * one database migrate one after another (the later ones find nothing to do). Refuses a database that a newer KXM
 * migrated, as the SQLite store does.
 */
async function applyMigrations(url: string, shown: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzle({ client });
    await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK})`);
    const [table] = await db.execute<{ name: string | null }>(
      sql`select to_regclass('drizzle.__drizzle_migrations')::text as name`,
    );
    const [applied] =
      table?.name === null || table?.name === undefined
        ? [undefined]
        : await db.execute<{ last: string | null }>(
            sql`select max(created_at)::text as last from drizzle.__drizzle_migrations`,
          );
    const newest = newestKnownMigration();
    if (applied?.last !== null && applied?.last !== undefined && Number(applied.last) > newest) {
      throw new KxmError(
        "database_schema_newer",
        `database ${shown} has a schema newer than this version of @kxm/state-store knows ` +
          `(migration ${applied.last} > ${newest}); upgrade KXM to open it`,
      );
    }
    await migrate(db, { migrationsFolder: PG_MIGRATIONS_FOLDER });
  } finally {
    await client.end({ timeout: 5 });
  }
}

/**
 * Opens the KXM store on a PostgreSQL server and applies the committed migrations. Codes:
 * `database_url_invalid` (not a postgres URL with a host and a database), `database_unreachable` (no server
 * answers, or it refuses the login), `database_schema_newer`. No message names the password.
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<KxmStore> {
  const parsed = parseDatabaseUrl(options.url);
  const shown = redactDatabaseUrl(parsed);
  try {
    await applyMigrations(options.url, shown);
  } catch (error) {
    if (isKxmError(error)) throw error;
    const cause = pgCause(error);
    const network = NETWORK_FAILURE.test(causeChain(error));
    // One line, from the error nearest the cause (drizzle's wrapper adds the query and its parameters on more).
    const reason = (cause.code === undefined ? deepestMessage(error) : cause.message).replace(/\s+/g, " ");
    // 28xxx: invalid authorization; 3D000: no such database.
    if (network || cause.code?.startsWith("28") || cause.code === "3D000") {
      throw new KxmError("database_unreachable", `cannot open the KXM database ${shown}: ${reason}`);
    }
    throw new KxmError("internal_error", `could not apply schema migrations to ${shown}: ${reason}`);
  }
  const client = postgres(options.url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    // writeTx relies on READ COMMITTED; a startup parameter outranks the server's, database's and role's defaults.
    connection: { application_name: "kxm-hub", default_transaction_isolation: "read committed" },
  });
  return refusingNul(new PostgresKxmStore(shown, drizzle({ client }), client));
}
