// What a store's offline maintenance reports: engine-neutral shapes, so that a PostgreSQL store can fill the same
// reports (or refuse the operation) while the SQLite implementation lives under src/sqlite/.
import type { ErrorCode } from "@kxm/contract";

/**
 * How the migrations recorded in a database compare with the ones this build knows. `up_to_date`: the same;
 * `behind`: some known ones are missing, and opening the store applies them; `ahead`: the database records a
 * migration this build does not know (a newer KXM wrote it), so this build refuses to serve it; `uninitialised`:
 * no migration table at all (an empty file, or not a KXM database).
 */
export type MigrationState = "up_to_date" | "behind" | "ahead" | "uninitialised";

export interface MigrationLevel {
  readonly state: MigrationState;
  /** How many migrations the database records. */
  readonly applied: number;
  /** How many this build knows. */
  readonly known: number;
  /** Known migrations the database lacks (their drizzle `created_at`). */
  readonly missing: readonly number[];
  /** Recorded migrations this build does not know (their drizzle `created_at`). */
  readonly unknown: readonly number[];
}

/** One thing wrong with a database: its catalogue code and one line for a person. */
export interface StoreProblem {
  readonly code: Extract<ErrorCode, "database_damaged" | "database_schema_newer">;
  readonly message: string;
}

/**
 * A file against the checksum manifest beside it (`<file>.sha256`, which `kxm hub backup` writes). `verified`: the
 * bytes are those recorded; `mismatch`: they are not (or the manifest holds no checksum), a `database_damaged`
 * problem; `missing`: no manifest, nothing to verify (a live database never has one).
 */
export interface ChecksumCheck {
  readonly state: "verified" | "mismatch" | "missing";
  /** The manifest's path, whether or not it exists. */
  readonly manifest: string;
  /** The SHA-256 the manifest records (undefined when missing, or when it holds none). */
  readonly expected?: string | undefined;
  /** The file's SHA-256, computed only when there is a manifest. */
  readonly actual?: string | undefined;
  /** When the backup that wrote the manifest started. */
  readonly startedAt?: string | undefined;
}

/** What a read-only check found. `healthy` is true when `problems` is empty. */
export interface StoreCheck {
  readonly file: string;
  readonly healthy: boolean;
  /** `integrity_check`, or the faster `quick_check` (which skips index contents). */
  readonly integrity: { readonly mode: "full" | "quick"; readonly ok: boolean };
  /** Rows whose foreign key points at no parent row. */
  readonly foreignKeyViolations: number;
  readonly migrations: MigrationLevel;
  /** Rows per table (drizzle's own migration table left out); empty when the file could not be read. */
  readonly rows: Readonly<Record<string, number>>;
  readonly bytes: number;
  /** The file against its checksum manifest, when the engine has files (SQLite). */
  readonly checksum?: ChecksumCheck | undefined;
  readonly problems: readonly StoreProblem[];
}

export interface BackupResult {
  /** The finished copy. */
  readonly file: string;
  readonly bytes: number;
  /** How long the copy and its verification took. */
  readonly durationMs: number;
  /** The copy's check: always healthy, or no file would be there. */
  readonly check: StoreCheck;
  /** The checksum manifest written beside the copy (`<file>.sha256`). */
  readonly manifest: string;
  /** The copy's SHA-256, as the manifest records it. */
  readonly sha256: string;
}

export interface RestoreResult {
  /** The database now in place. */
  readonly file: string;
  /** Where the database it replaced was kept, or undefined when there was none. */
  readonly keptAs: string | undefined;
  /** The restored copy's check. */
  readonly check: StoreCheck;
  /** The backup against its manifest: `verified`, or `missing` (restored with a warning); a mismatch is refused. */
  readonly backupChecksum: ChecksumCheck;
}
