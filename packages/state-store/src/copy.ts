// `copySqliteToPostgres`: moves a SQLite hub's whole database to an empty PostgreSQL database, row for row, so a
// team that outgrows one hub keeps its history, packets, credentials and change-feed positions.
import { resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { openStore } from "./open.js";
import { writeTx } from "./postgres/db.js";
import { openPostgresStore } from "./postgres/open.js";
import * as pg from "./postgres/schema.js";
import { parseDatabaseUrl, redactDatabaseUrl } from "./postgres/url.js";
import * as lite from "./schema.js";

/**
 * Every table but one, parents before children, as the SQLite table and its PostgreSQL twin. Both define the same columns
 * under the same property names, so a row read from one inserts into the other as it is. The inspector's sign-in
 * sessions (`inspector_sessions`) are not copied: they belong to the hub that served them, and end with the move.
 */
const TABLES = [
  ["projects", lite.projects, pg.projects],
  ["agent_credentials", lite.agentCredentials, pg.agentCredentials],
  ["operator_credentials", lite.operatorCredentials, pg.operatorCredentials],
  ["runs", lite.runs, pg.runs],
  ["items", lite.items, pg.items],
  ["state_proposals", lite.stateProposals, pg.stateProposals],
  ["journal_entries", lite.journalEntries, pg.journalEntries],
  ["journal_reviews", lite.journalReviews, pg.journalReviews],
  ["changes", lite.changes, pg.changes],
  ["record_versions", lite.recordVersions, pg.recordVersions],
  ["item_contributors", lite.itemContributors, pg.itemContributors],
  ["history_floors", lite.historyFloors, pg.historyFloors],
  ["revocations", lite.revocations, pg.revocations],
  ["tombstones", lite.tombstones, pg.tombstones],
  ["packet_audits", lite.packetAudits, pg.packetAudits],
] as const;

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH = 500;

export interface CopyToPostgresOptions {
  /** The SQLite database file (no hub may have it open). */
  readonly from: string;
  /** The PostgreSQL database (`postgres://user:password@host:port/db`); it must hold no KXM data yet. */
  readonly to: string;
}

/** What was copied. */
export interface CopyToPostgresResult {
  /** The SQLite file, absolute. */
  readonly from: string;
  /** The PostgreSQL database, without its password. */
  readonly to: string;
  /** Rows copied per table, in copy order. */
  readonly rows: Record<string, number>;
  /** The change feed's head, carried over so hub cursors and stored packets' seqs keep their meaning. */
  readonly changeHead: number;
}

/**
 * Copies every row of the SQLite store at `from` into the PostgreSQL database at `to`, in one PostgreSQL
 * transaction: all of it lands, or nothing. The file is first migrated to this KXM's schema (a newer one is
 * `database_schema_newer`) and then read in one snapshot under an exclusive lock, so a hub still serving it is
 * refused (`database_in_use`: stop it first, or writes after the copy would be lost). The target is migrated and
 * must hold no project, operator or change (`database_not_empty`). Codes also: `not_found` (no file),
 * `database_url_invalid`, `database_unreachable`.
 */
export async function copySqliteToPostgres(options: CopyToPostgresOptions): Promise<CopyToPostgresResult> {
  const from = resolve(options.from);
  const shown = redactDatabaseUrl(parseDatabaseUrl(options.to));
  const target = await openPostgresStore({ url: options.to, maxConnections: 1 });
  await target.close();
  // Migrates the file to this version's schema, so both sides have the same columns.
  await (await openFile(from)).close();

  const sqlite = takeForCopy(from);
  const client = postgres(options.to, { max: 1, onnotice: () => {} });
  try {
    const source = drizzleSqlite({ client: sqlite });
    const db = drizzlePg({ client });
    const rows: Record<string, number> = {};
    let changeHead = 0;
    await writeTx(db, async (tx) => {
      const [held] = await tx.execute<{ n: string }>(sql`select
        (select count(*) from projects) + (select count(*) from operator_credentials)
        + (select count(*) from changes) as n`);
      if (Number(held?.n ?? 0) > 0) {
        throw new KxmError(
          "database_not_empty",
          `${shown} already holds KXM data; copy into a new, empty database`,
        );
      }
      for (const [name, from, to] of TABLES) {
        const all = source.select().from(from).all() as Record<string, unknown>[];
        for (let start = 0; start < all.length; start += BATCH) {
          await tx.insert(to).values(all.slice(start, start + BATCH) as never);
        }
        rows[name] = all.length;
      }
      // The feed never prunes its newest row, so its greatest seq is the head.
      changeHead = source.get<{ head: number | null }>(sql`select max(seq) as head from changes`)?.head ?? 0;
      await tx.update(pg.changeHead).set({ seq: changeHead });
    });
    return { from, to: shown, rows, changeHead };
  } finally {
    sqlite.close();
    await client.end({ timeout: 5 });
  }
}

/** Opens the file as a store (applying migrations); a missing file is `not_found`, never a new database. */
async function openFile(file: string) {
  try {
    new Database(file, { fileMustExist: true, readonly: true }).close();
  } catch {
    throw new KxmError("not_found", `no SQLite database at ${file}`);
  }
  return openStore({ path: file });
}

/**
 * Opens the file with an exclusive lock held until it is closed, inside a read transaction: while any other
 * connection has a WAL database open it holds a shared lock on the file, so this fails at once when a hub is
 * serving it (and no hub can open it while the copy runs).
 */
function takeForCopy(file: string): Database.Database {
  const sqlite = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    sqlite.pragma("locking_mode = EXCLUSIVE");
    sqlite.exec("BEGIN EXCLUSIVE");
    return sqlite;
  } catch (error) {
    sqlite.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) {
      throw new KxmError(
        "database_in_use",
        `${file} is open in another process (a serving hub?); stop it, then copy`,
      );
    }
    throw error;
  }
}
