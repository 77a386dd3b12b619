import type { CopyToPostgresResult } from "@kxm/state-store";
import { KxmCommand, UsageError } from "../../base.js";
import { databaseUrlFlag, dbFlag, hubDatabasePath, hubDatabaseUrl } from "../../db-path.js";

export default class HubCopyToPostgres extends KxmCommand {
  static override summary =
    "Copy a SQLite hub's database into an empty PostgreSQL database (stop the hub first).";
  static override description =
    "Moves a hub from the embedded SQLite file to PostgreSQL: every row of every table (projects, credentials, " +
    "state and its history, runs, journal and reviews, revocations and tombstones, stored packets, the change " +
    "feed and record versions) is copied in one PostgreSQL transaction, so all of it lands or nothing does, and " +
    "every read on PostgreSQL answers what the SQLite hub answered. The target is KXM_DATABASE_URL (or " +
    "--database-url, which must not hold a password: use PGPASSWORD); it is migrated first and must hold no KXM " +
    "data (database_not_empty). The file is migrated to this KXM's schema, then read under an exclusive lock: " +
    "while a hub has it open the copy is refused with database_in_use. The file itself is left as it was. " +
    "--json prints {from, to, rows, changeHead}.";
  static override examples = [
    "KXM_DATABASE_URL=postgres://kxm:secret@db.internal:5432/kxm <%= config.bin %> <%= command.id %> --db .kxm/state/kxm.db",
    "PGPASSWORD=$(cat ~/.kxm-db-password) <%= config.bin %> <%= command.id %> --database-url postgres://kxm@db.internal/kxm --json",
  ];
  static override flags = { db: dbFlag, "database-url": databaseUrlFlag };

  async run(): Promise<CopyToPostgresResult> {
    const { flags } = await this.parse(HubCopyToPostgres);
    const folder = await this.workingFolder(flags.cwd);
    const from = await hubDatabasePath(flags.db, folder);
    const to = await hubDatabaseUrl(flags["database-url"], folder);
    if (to === undefined) {
      throw new UsageError(
        "hub copy-to-postgres needs a target: set KXM_DATABASE_URL or pass --database-url",
      );
    }
    const { copySqliteToPostgres } = await import("@kxm/state-store");
    const result = await copySqliteToPostgres({ from, to });
    const total = Object.values(result.rows).reduce((sum, n) => sum + n, 0);
    this.say(`Copied ${from} to ${result.to}: ${total} rows in ${Object.keys(result.rows).length} tables`);
    this.say(`The change feed goes on from ${result.changeHead}; start the hubs with KXM_DATABASE_URL set`);
    return result;
  }
}
