// `checkSqliteStore`: a read-only health check of a SQLite store file. It opens the file read-only and never
// migrates, so checking a live hub's database (its -wal present) or a suspect copy changes nothing in the file.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import type { MigrationLevel, StoreCheck, StoreProblem } from "../maintenance.js";
import { knownMigrations, MIGRATIONS_TABLE } from "../migrations.js";
import { verifyManifest } from "./manifest.js";

/** At most this many integrity messages are reported: a badly damaged file yields thousands. */
const INTEGRITY_MESSAGES = 20;

export interface CheckOptions {
  /** `quick_check` in place of `integrity_check`: much faster on a large file, skips index contents. */
  readonly quick?: boolean;
  /** Skip the checksum manifest (a temporary copy, which has none yet). */
  readonly noChecksum?: boolean;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** SQLite's integrity messages may span lines ("row 3 missing from index …\n…"): a problem is one line. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The SQLite failure in one line, for a problem message. */
function reason(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error));
}

/** The migration level of an open connection: the recorded migrations against those this build knows. */
function migrationLevel(sqlite: Database.Database): MigrationLevel {
  const known = knownMigrations().map((migration) => migration.millis);
  const table = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name = ?")
    .get(MIGRATIONS_TABLE);
  if (table === undefined) {
    return { state: "uninitialised", applied: 0, known: known.length, missing: known, unknown: [] };
  }
  const applied = (
    sqlite.prepare(`select created_at as millis from ${MIGRATIONS_TABLE}`).all() as { millis: unknown }[]
  ).map((row) => Number(row.millis));
  const unknown = applied.filter((millis) => !known.includes(millis));
  const missing = known.filter((millis) => !applied.includes(millis));
  const state = unknown.length > 0 ? "ahead" : missing.length > 0 ? "behind" : "up_to_date";
  return { state, applied: applied.length, known: known.length, missing, unknown };
}

/** Rows per user table, drizzle's migration table left out. */
function rowCounts(sqlite: Database.Database): Record<string, number> {
  const tables = sqlite
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name <> ? order by name",
    )
    .all(MIGRATIONS_TABLE) as { name: string }[];
  const rows: Record<string, number> = {};
  for (const { name } of tables) {
    const row = sqlite.prepare(`select count(*) as n from ${quoted(name)}`).get() as { n: number };
    rows[name] = row.n;
  }
  return rows;
}

/**
 * Checks the SQLite store at `path` without changing it: `integrity_check` (or `quick_check`), `foreign_key_check`,
 * the migration level, the rows per table and, when a checksum manifest (`<path>.sha256`) is beside it, its SHA-256
 * against the manifest's: the one check that sees damage inside a text value. Every finding is a problem with a catalogue code; the file is never
 * migrated, so a database a newer KXM wrote is reported (`database_schema_newer`), not refused. Throws `not_found`
 * when there is no file at `path`.
 */
export function checkSqliteStore(path: string, options: CheckOptions = {}): StoreCheck {
  const file = resolve(path);
  let bytes: number;
  try {
    const info = statSync(file);
    if (!info.isFile()) throw new KxmError("not_found", `${file} is not a file`);
    bytes = info.size;
  } catch (error) {
    if (error instanceof KxmError) throw error;
    throw new KxmError("not_found", `no database at ${file}`);
  }
  const mode = options.quick === true ? "quick" : "full";
  const problems: StoreProblem[] = [];
  const damaged = (message: string) => problems.push({ code: "database_damaged", message });
  let integrityOk = false;
  let foreignKeyViolations = 0;
  let migrations: MigrationLevel = {
    state: "uninitialised",
    applied: 0,
    known: knownMigrations().length,
    missing: [],
    unknown: [],
  };
  let rows: Record<string, number> = {};
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(file, { readonly: true, fileMustExist: true });
    const pragma = mode === "quick" ? "quick_check" : "integrity_check";
    const messages = sqlite.pragma(`${pragma}(${INTEGRITY_MESSAGES})`, { simple: false }) as Record<
      string,
      string
    >[];
    const lines = messages.map((row) => oneLine(String(Object.values(row)[0])));
    integrityOk = lines.length === 1 && lines[0] === "ok";
    if (!integrityOk) for (const line of lines) damaged(`${file}: ${pragma}: ${line}`);
    const violations = sqlite.pragma("foreign_key_check") as { table: string; parent: string }[];
    foreignKeyViolations = violations.length;
    if (violations.length > 0) {
      const first = violations[0]!;
      damaged(
        `${file}: ${violations.length} row(s) break a foreign key (first: ${first.table} -> ${first.parent})`,
      );
    }
    migrations = migrationLevel(sqlite);
    if (migrations.state === "ahead") {
      problems.push({
        code: "database_schema_newer",
        message:
          `${file} records ${migrations.unknown.length} migration(s) this KXM does not know ` +
          `(${migrations.unknown.join(", ")}): a newer KXM wrote it; upgrade KXM to serve it`,
      });
    } else if (migrations.state === "uninitialised") {
      damaged(`${file} holds no KXM schema (no ${MIGRATIONS_TABLE} table)`);
    }
    rows = rowCounts(sqlite);
  } catch (error) {
    // Not a database, or damage bad enough that SQLite stops reading (SQLITE_CORRUPT, SQLITE_NOTADB).
    integrityOk = false;
    damaged(`${file}: ${reason(error)}`);
  } finally {
    sqlite?.close();
  }
  const checksum = options.noChecksum === true ? undefined : verifyManifest(file);
  if (checksum?.state === "mismatch") {
    damaged(
      checksum.expected === undefined
        ? `${file}: its manifest ${checksum.manifest} holds no sha256 line`
        : `${file}: sha256 ${checksum.actual} does not match ${checksum.expected} in ${checksum.manifest}`,
    );
  }
  return {
    file,
    healthy: problems.length === 0,
    integrity: { mode, ok: integrityOk },
    foreignKeyViolations,
    migrations,
    rows,
    bytes,
    checksum,
    problems,
  };
}
