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

export interface BackupOptions {
  /** The live database. */
  readonly from: string;
  /** Where the copy goes. Its folder must exist. */
  readonly to: string;
  /** Replace a file already at `to`. */
  readonly force?: boolean;
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
 * migration level not ahead) and only then renamed to `to`; a failure removes the temporary file.
 *
 * Refuses (`backup_refused`, nothing written) a `to` that exists without `force`, whose folder is missing or is a
 * file, that is a folder, or that is the database itself or its -wal or -shm; `not_found` when there is no
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
  const temporary = temporaryBeside(to);
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
    const check = checkSqliteStore(temporary);
    const problem = check.problems[0];
    if (problem !== undefined) {
      throw new KxmError(problem.code, `the copy of ${from} failed its check: ${problem.message}`);
    }
    if (options.force === true) renameSync(temporary, to);
    else {
      // A link fails if another process made `to` since the refusal check: never replace a file unasked.
      try {
        linkSync(temporary, to);
      } catch (error) {
        if ((error as { code?: unknown }).code === "EEXIST")
          throw new KxmError(
            "backup_refused",
            `the backup destination ${to} already exists; --force replaces it`,
          );
        throw error;
      }
      rmSync(temporary);
    }
    fsyncPath(dirname(to));
    return {
      file: to,
      bytes: statSync(to).size,
      durationMs: performance.now() - started,
      check: { ...check, file: to },
    };
  } finally {
    removeTemporary(temporary);
  }
}
