// `backupSqliteStore`: an online, consistent copy of a live SQLite store through SQLite's backup API, while hubs
// keep serving and writing the same file.
import { linkSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import type { BackupResult } from "../maintenance.js";
import { BUSY_TIMEOUT_MS } from "../open.js";
import { checkSqliteStore } from "./check.js";
import {
  fsyncPath,
  isDamage,
  refuseDestination,
  refuseLiveFile,
  removeTemporary,
  settleCopy,
  temporaryBeside,
} from "./files.js";
import { manifestPath, sha256OfFile, writeManifest } from "./manifest.js";

export interface BackupOptions {
  /** The live database. */
  readonly from: string;
  /** Where the copy goes. Its folder must exist. */
  readonly to: string;
  /** Replace a file already at `to`. */
  readonly force?: boolean;
  /** Recorded in the manifest: when the caller started the backup (the store reads no clock). */
  readonly startedAt?: string;
  /** Called as pages are copied. */
  readonly onProgress?: (progress: { totalPages: number; remainingPages: number }) => void;
}

/** All remaining pages in one step (better-sqlite3's upper bound). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the store at `from` to `to` with SQLite's online backup API while other processes (hubs) keep writing
 * it. The copy is made in one backup step, that is in one read transaction of the source: in WAL mode a reader
 * never blocks writers, and one step never restarts because of them, so the copy is the database as of the moment
 * the step began (every write acknowledged before then is in it). The copy is written to a temporary 0600 file
 * beside `to`, put in rollback journal mode (one self-contained file), checked (`integrity_check`, foreign keys,
 * migration level not ahead), its SHA-256 written to a temporary manifest, and only then both are renamed into
 * place: the manifest to `<to>.sha256` first, then the copy to `to`. A failure between the two leaves a manifest
 * that does not match what is at `to` (the previous copy, or nothing), which `checkSqliteStore` reports as
 * damaged: never a new copy beside a stale manifest that passes. A failure removes the temporary files.
 *
 * Refuses (`backup_refused`, nothing written) a `to` that exists without `force`, whose folder is missing or is a
 * file, that is a folder, whose manifest `<to>.sha256` exists without `force`, or that is the database itself or
 * its -wal or -shm; `not_found` when there is no
 * database at `from`; `database_damaged` or `database_schema_newer` when the copy fails its check.
 */
export async function backupSqliteStore(options: BackupOptions): Promise<BackupResult> {
  const from = resolve(options.from);
  const to = resolve(options.to);
  const started = performance.now();
  if (!statSync(from, { throwIfNoEntry: false })?.isFile())
    throw new KxmError("not_found", `no database at ${from}`);
  refuseLiveFile(to, from, "the backup destination");
  refuseDestination(to, options.force === true, "the backup destination");
  const manifest = manifestPath(to);
  refuseLiveFile(manifest, from, "the backup manifest");
  refuseDestination(manifest, options.force === true, "the backup manifest");
  const temporary = temporaryBeside(to);
  let temporaryManifest: string | undefined;
  try {
    const source = new Database(from, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    try {
      const done = await source.backup(temporary, {
        progress: (progress) => {
          options.onProgress?.(progress);
          return ALL_PAGES;
        },
      });
      options.onProgress?.(done);
    } catch (error) {
      if (isDamage(error)) {
        const message = error instanceof Error ? error.message : String(error);
        throw new KxmError("database_damaged", `cannot back up ${from}: ${message}`);
      }
      throw error;
    } finally {
      source.close();
    }
    settleCopy(temporary, from);
    const check = checkSqliteStore(temporary, { noChecksum: true });
    const problem = check.problems[0];
    if (problem !== undefined) {
      throw new KxmError(problem.code, `the copy of ${from} failed its check: ${problem.message}`);
    }
    // Hashed after the check: the check only reads, and the copy is final once out of WAL mode.
    const sha256 = sha256OfFile(temporary);
    temporaryManifest = temporaryBeside(manifest);
    writeManifest(temporaryManifest, to, sha256, {
      source: from,
      startedAt: options.startedAt,
      bytes: check.bytes,
      migrationsApplied: check.migrations.applied,
    });
    if (options.force === true) {
      renameSync(temporaryManifest, manifest);
      renameSync(temporary, to);
    } else {
      // A link fails if another process made the file since the refusal check: never replace a file unasked.
      placeNew(temporaryManifest, manifest, "the backup manifest");
      try {
        placeNew(temporary, to, "the backup destination");
      } catch (error) {
        rmSync(manifest, { force: true });
        throw error;
      }
    }
    fsyncPath(dirname(to));
    return {
      file: to,
      bytes: statSync(to).size,
      durationMs: performance.now() - started,
      check: {
        ...check,
        file: to,
        checksum: { state: "verified", manifest, expected: sha256, actual: sha256 },
      },
      manifest,
      sha256,
    };
  } finally {
    removeTemporary(temporary);
    if (temporaryManifest !== undefined) rmSync(temporaryManifest, { force: true });
  }
}

/** Links `temporary` to the new name `target` and removes it; `backup_refused` if `target` appeared meanwhile. */
function placeNew(temporary: string, target: string, what: string): void {
  try {
    linkSync(temporary, target);
  } catch (error) {
    if ((error as { code?: unknown }).code === "EEXIST")
      throw new KxmError("backup_refused", `${what} ${target} already exists; --force replaces it`);
    throw error;
  }
  rmSync(temporary);
}
