// The database a `kxm hub` maintenance command works on, found as `kxm hub serve` finds it, so that a backup,
// check or restore names the file the hub serves.
import { resolve } from "node:path";
import { isKxmError } from "@kxm/contract";
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

/** A byte count for people: 4.2 MiB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
