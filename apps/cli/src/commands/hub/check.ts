import type { StoreCheck } from "@kxm/state-store";
import { Flags } from "@oclif/core";
import { EXIT, KxmCommand } from "../../base.js";
import { dbFlag, hubDatabasePath, size } from "../../db-path.js";

const LEVEL = {
  up_to_date: "up to date",
  behind: "behind (the hub applies the missing migrations when it starts)",
  ahead: "ahead (a newer KXM wrote it; this one refuses to serve it)",
  uninitialised: "none (not a KXM database)",
} as const;

const CHECKSUM = {
  verified: "matches its manifest",
  mismatch: "DOES NOT match its manifest",
  missing: "no checksum to verify (no manifest; a live database has none)",
} as const;

export default class HubCheck extends KxmCommand {
  static override summary = "Check the hub's database without changing it.";
  static override description =
    "Opens the database read-only (a running hub may keep serving it) and runs SQLite's integrity_check (or " +
    "quick_check with --quick) and foreign_key_check, compares the migrations it records with those this KXM " +
    "knows, and counts the rows of each table. When a checksum manifest <db>.sha256 (written by kxm hub backup) " +
    "is beside the file, its SHA-256 must match: the only check that sees damage inside a text value; without " +
    "one it says there is no checksum to verify, which is not a problem. It never migrates or writes the file. Exits 0 when healthy; " +
    "otherwise prints one line per problem on stderr (database_damaged, database_schema_newer) and exits 1. " +
    "--json prints the report, {file, healthy, integrity, foreignKeyViolations, migrations, rows, bytes, checksum, problems}; " +
    "checksum is {state: verified|mismatch|missing, manifest, expected, actual, startedAt}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --db backups/kxm-2026-12-01.db --json",
    "<%= config.bin %> <%= command.id %> --quick",
  ];
  static override flags = {
    db: dbFlag,
    quick: Flags.boolean({
      description: "quick_check in place of integrity_check: faster, skips index contents",
    }),
  };

  async run(): Promise<StoreCheck> {
    const { flags } = await this.parse(HubCheck);
    const file = await hubDatabasePath(flags.db, await this.workingFolder(flags.cwd));
    const { checkSqliteStore } = await import("@kxm/state-store");
    const check = checkSqliteStore(file, { quick: flags.quick });
    if (this.jsonEnabled()) {
      if (!check.healthy) {
        this.logJson(check);
        return this.exit(EXIT.failed);
      }
      return check;
    }
    const integrity = check.integrity.mode === "quick" ? "quick_check" : "integrity_check";
    this.log(`${check.file} (${size(check.bytes)}): ${check.healthy ? "healthy" : "NOT healthy"}`);
    this.log(`  ${integrity}: ${check.integrity.ok ? "ok" : "failed"}`);
    this.log(
      `  foreign keys: ${check.foreignKeyViolations === 0 ? "ok" : `${check.foreignKeyViolations} broken`}`,
    );
    const level = check.migrations;
    this.log(`  migrations: ${LEVEL[level.state]} (${level.applied} applied, ${level.known} known)`);
    const checksum = check.checksum;
    if (checksum !== undefined) this.log(`  checksum: ${CHECKSUM[checksum.state]} (${checksum.manifest})`);
    const rows = Object.entries(check.rows).map(([table, n]) => `${table} ${n}`);
    if (rows.length > 0) this.log(`  rows: ${rows.join(", ")}`);
    if (check.healthy) return check;
    for (const problem of check.problems)
      process.stderr.write(`hub check: ${problem.code}: ${problem.message}\n`);
    return this.exit(EXIT.failed);
  }
}
