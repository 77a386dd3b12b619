import type { BackupResult } from "@kxm/state-store";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { dbFlag, hubDatabasePath, size } from "../../db-path.js";

export default class HubBackup extends KxmCommand {
  static override summary = "Copy the hub's database while it serves.";
  static override description =
    "Makes a consistent copy of the database with SQLite's online backup API: hubs keep serving and writing " +
    "while it runs, and the copy holds every write acknowledged before it began. The copy is written to a " +
    "temporary file beside <file>, checked (integrity_check, foreign keys, migration level) and only then renamed " +
    "to <file>, mode 0600, as one self-contained file (no -wal), with a checksum manifest <file>.sha256 beside it " +
    "(0600, the sha256sum format, so `sha256sum -c <file>.sha256` verifies it too; `kxm hub check` and restore " +
    "verify it). The manifest is renamed into place before the copy. Refused (backup_refused), with nothing written: " +
    "<file> or <file>.sha256 exists (unless --force), its folder is missing or is a file, or it is the database or its -wal or " +
    "-shm. --json prints {file, source, startedAt, bytes, durationMs, check, manifest, sha256}; every write acknowledged before " +
    "startedAt is in the copy.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> backups/kxm-$(date -u +%Y%m%dT%H%M%SZ).db",
    "<%= config.bin %> <%= command.id %> /srv/backups/kxm.db --db /srv/kxm/state/kxm.db --force --json",
  ];
  static override args = {
    file: Args.string({ description: "Where the copy goes; its folder must exist", required: true }),
  };
  static override flags = {
    db: dbFlag,
    force: Flags.boolean({ description: "Replace <file> if it exists" }),
  };

  async run(): Promise<BackupResult & { source: string; startedAt: string }> {
    const { args, flags } = await this.parse(HubBackup);
    const folder = await this.workingFolder(flags.cwd);
    const source = await hubDatabasePath(flags.db, folder);
    const { resolve } = await import("node:path");
    const { backupSqliteStore } = await import("@kxm/state-store");
    // Every write acknowledged before this moment is in the copy: the backup's one read transaction starts later.
    const startedAt = new Date().toISOString();
    const result = await backupSqliteStore({
      from: source,
      to: resolve(folder, args.file),
      force: flags.force,
      startedAt,
    });
    const rows = Object.values(result.check.rows).reduce((sum, n) => sum + n, 0);
    this.say(
      `Backed up ${source} to ${result.file} (${size(result.bytes)}, ${rows} rows, ` +
        `${Math.round(result.durationMs)} ms); the copy passed integrity_check`,
    );
    this.say(`Its sha256 is in ${result.manifest}`);
    return { ...result, source, startedAt };
  }
}
