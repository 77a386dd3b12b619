// The database a `kxm hub` maintenance command works on, found as `kxm hub serve` finds it, so that a backup,
// check or restore names the file the hub serves.
import { resolve } from "node:path";
import { isKxmError, KxmError } from "@kxm/contract";
import { Flags } from "@oclif/core";
import { UsageError } from "./base.js";
import { hubEnvSource } from "./env.js";

export const dbFlag = Flags.string({
  description: "The SQLite database file (default: KXM_DB_PATH, else .kxm/state/kxm.db)",
  helpValue: "<file>",
});

/** `--db` resolved against `folder`, else the hub's KXM_DB_PATH (validated by the hub's own env module). */
export async function hubDatabasePath(flag: string | undefined, folder: string): Promise<string> {
  if (flag !== undefined) return resolve(folder, flag);
  const { readHubEnv } = await import("@kxm/hub");
  try {
    return readHubEnv(hubEnvSource(), folder).dbPath;
  } catch (error) {
    if (isKxmError(error) && error.code === "invalid_usage") throw new UsageError(error.message);
    throw error;
  }
}

export const databaseUrlFlag = Flags.string({
  description: "A PostgreSQL database, without its password (default: KXM_DATABASE_URL)",
  helpValue: "<postgres://user@host:port/db>",
});

/**
 * A `--database-url`, refused when it holds a password: every user of the machine can read a process's arguments.
 * The URL's form is checked where it is opened (`database_url_invalid`).
 */
export function commandLineUrl(url: string): string {
  let password = "";
  try {
    password = new URL(url).password;
  } catch {
    // Not a URL: refused with its reason when it is opened.
  }
  if (password !== "") {
    throw new KxmError(
      "database_url_invalid",
      "--database-url must not hold a password (any user can read a command line): put the URL in " +
        "KXM_DATABASE_URL, or the password in PGPASSWORD",
    );
  }
  return url;
}

/** `--database-url`, else the hub's KXM_DATABASE_URL, else undefined (the hub would serve SQLite). */
export async function hubDatabaseUrl(flag: string | undefined, folder: string): Promise<string | undefined> {
  if (flag !== undefined) return commandLineUrl(flag);
  const { readHubEnv } = await import("@kxm/hub/preflight");
  try {
    return readHubEnv(hubEnvSource(), folder).databaseUrl;
  } catch (error) {
    if (isKxmError(error) && error.code === "invalid_usage") throw new UsageError(error.message);
    throw error;
  }
}

/** A byte count for people: 4.2 MiB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
