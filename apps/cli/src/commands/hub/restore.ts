import type { RestoreResult } from "@kxm/state-store";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { dbFlag, hubDatabasePath } from "../../db-path.js";

export default class HubRestore extends KxmCommand {
  static override summary = "Put a backup in place of the hub's database (stop the hub first).";
  static override description =
    "Checks the backup (integrity_check, foreign keys; a backup from a newer KXM is refused with " +
    "database_schema_newer) and, when <backup>.sha256 is beside it, its checksum (a mismatch is refused with " +
    "database_damaged; a backup without one is restored with a warning on stderr, as integrity_check alone " +
    "cannot see damage inside text values), copies it beside the database and checks the copy, then puts it in place with a " +
    "rename. An existing database needs --force and is kept as <db>.before-restore-<UTC stamp>, with its WAL " +
    "folded in and its -wal and -shm removed. Refused with database_in_use while any process (a serving hub) " +
    "has the database open. A missing folder is created 0700. --json prints {file, backup, keptAs, check, backupChecksum}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> backups/kxm-20261201T020000Z.db --force",
    "<%= config.bin %> <%= command.id %> /srv/backups/kxm.db --db /srv/kxm/state/kxm.db --force --json",
  ];
  static override args = {
    backup: Args.string({ description: "The backup file, as `kxm hub backup` wrote it", required: true }),
  };
  static override flags = {
    db: dbFlag,
    force: Flags.boolean({
      description: "Replace an existing database (it is kept as <db>.before-restore-…)",
    }),
  };

  async run(): Promise<RestoreResult & { backup: string }> {
    const { args, flags } = await this.parse(HubRestore);
    const folder = await this.workingFolder(flags.cwd);
    const target = await hubDatabasePath(flags.db, folder);
    const { resolve } = await import("node:path");
    const { restoreSqliteStore } = await import("@kxm/state-store");
    const backup = resolve(folder, args.backup);
    const result = await restoreSqliteStore({ backup, to: target, force: flags.force, now: new Date() });
    if (result.backupChecksum.state === "missing")
      process.stderr.write(
        `hub restore: warning: no checksum to verify: ${result.backupChecksum.manifest} is missing, so damage ` +
          "inside a text value could not be ruled out\n",
      );
    this.say(`Restored ${backup} to ${result.file}`);
    if (result.keptAs !== undefined) this.say(`The database it replaced is kept as ${result.keptAs}`);
    return { ...result, backup };
  }
}
