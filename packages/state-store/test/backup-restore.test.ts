// Backup, check and restore on real SQLite files. The concurrent case (a hub process writing while a backup runs)
// is apps/cli/test/hub-backup.test.ts; here the refusals and what the check finds.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { backupSqliteStore, checkSqliteStore, openStore, restoreSqliteStore } from "../src/index.js";
import { knownMigrations } from "../src/migrations.js";
import { guideProposal } from "./support/state-fixtures.js";
import { at, open, T0, tempDir, tempStore } from "./support/temp-store.js";

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a rejection");
}

function expectCode(error: unknown, code: string): void {
  expect(isKxmError(error) && error.code, String(error)).toBe(code);
}

/** A store with a project and `n` proposals, still open (its -wal in use). */
async function seeded(n = 40) {
  const opened = await tempStore();
  await opened.store.createProject({ id: "demo" }, at(T0));
  for (let i = 0; i < n; i++) {
    await opened.store.proposeState(guideProposal({ key: `k.${i}`, summary: `Value ${i}` }), at(T0, i + 1));
  }
  return opened;
}

/** Overwrites 64 bytes in the middle of every page after the first: damage the check must see. */
function corrupt(file: string): void {
  const pageSize = 4096;
  const pages = Math.floor(statSync(file).size / pageSize);
  const fd = openSync(file, "r+");
  try {
    for (let page = 2; page <= pages; page++) {
      writeSync(fd, Buffer.alloc(64, 0x5a), 0, 64, (page - 1) * pageSize + pageSize / 2 - 32);
    }
  } finally {
    closeSync(fd);
  }
}

/** Records a migration this build does not know, as a newer KXM would have. */
function fromTheFuture(file: string): number {
  const newest = Math.max(...knownMigrations().map((migration) => migration.millis));
  const raw = new Database(file);
  raw.prepare("insert into __drizzle_migrations (hash, created_at) values (?, ?)").run("future", newest + 1);
  raw.close();
  return newest + 1;
}

const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".tmp"));

describe("backupSqliteStore", () => {
  test("copies a live store to one 0600 file that passes its check and holds every row", async () => {
    const { file, store } = await seeded();
    const dest = join(tempDir(), "copy.db");
    const result = await backupSqliteStore({ from: file, to: dest });
    expect(result.file).toBe(dest);
    expect(result.check.healthy).toBe(true);
    expect(result.check.rows.state_proposals).toBe(40);
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    expect(existsSync(`${dest}-wal`)).toBe(false);
    // The copy opens as a store holding the same proposals, and the source still serves.
    const copy = await open(dest);
    expect((await copy.listProjects()).map((project) => project.id)).toEqual(["demo"]);
    await store.proposeState(guideProposal({ key: "after", summary: "After" }), at(T0, 100));
    expect(checkSqliteStore(dest).rows.state_proposals).toBe(40);
  });

  test("refusals write nothing", async () => {
    const { file, dir } = await seeded(2);
    const out = tempDir();
    const existing = join(out, "exists.db");
    writeFileSync(existing, "keep me");
    const aFile = join(out, "plain.txt");
    writeFileSync(aFile, "x");
    symlinkSync(file, join(out, "link.db"));
    const cases: [string, RegExp][] = [
      [existing, /already exists; --force/],
      [join(out, "missing", "copy.db"), /does not exist/],
      [join(aFile, "copy.db"), /under a file/],
      [out, /is a folder/],
      [file, /is the database/],
      [`${file}-wal`, /its -wal file/],
      [`${file}-shm`, /its -shm file/],
      [join(out, "link.db"), /is the database/],
    ];
    for (const [to, message] of cases) {
      // --force only lifts the refusal of an existing file, so it is given wherever another refusal is meant.
      const error = await rejection(backupSqliteStore({ from: file, to, force: to !== existing }));
      expectCode(error, "backup_refused");
      expect(error.message).toMatch(message);
    }
    expect(statSync(existing).size).toBe("keep me".length);
    expect(leftovers(out)).toEqual([]);
    expect(leftovers(join(dir, "state"))).toEqual([]);
    expectCode(
      await rejection(backupSqliteStore({ from: join(out, "none.db"), to: join(out, "c.db") })),
      "not_found",
    );
    expect(existsSync(join(out, "c.db"))).toBe(false);
  });

  test("--force replaces an existing file with the copy", async () => {
    const { file } = await seeded(3);
    const dest = join(tempDir(), "copy.db");
    writeFileSync(dest, "old");
    await backupSqliteStore({ from: file, to: dest, force: true });
    expect(checkSqliteStore(dest).rows.state_proposals).toBe(3);
  });

  test("a damaged source gives no copy", async () => {
    const { file, store } = await seeded(60);
    await store.close();
    const damaged = join(tempDir(), "damaged.db");
    copyFileSync(file, damaged);
    corrupt(damaged);
    const out = tempDir();
    const error = await rejection(backupSqliteStore({ from: damaged, to: join(out, "copy.db") }));
    expectCode(error, "database_damaged");
    expect(readdirSync(out)).toEqual([]);
  });
});

describe("checkSqliteStore", () => {
  test("a live store is healthy and up to date, and the check changes no byte of it", async () => {
    const { file, store } = await seeded(5);
    await store.close();
    const before = statSync(file);
    const check = checkSqliteStore(file);
    expect(check.healthy).toBe(true);
    expect(check.integrity).toEqual({ mode: "full", ok: true });
    expect(check.migrations.state).toBe("up_to_date");
    expect(check.migrations.applied).toBe(knownMigrations().length);
    expect(check.rows).toMatchObject({ projects: 1, state_proposals: 5 });
    expect(checkSqliteStore(file, { quick: true }).integrity).toEqual({ mode: "quick", ok: true });
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
  });

  test("finds a corrupted copy", async () => {
    const { file, store } = await seeded(60);
    await store.close();
    const damaged = join(tempDir(), "damaged.db");
    copyFileSync(file, damaged);
    corrupt(damaged);
    const check = checkSqliteStore(damaged);
    expect(check.healthy).toBe(false);
    expect(check.integrity.ok).toBe(false);
    expect(check.problems.length).toBeGreaterThan(0);
    for (const problem of check.problems) expect(problem.code).toBe("database_damaged");
  });

  test("finds a database a newer KXM migrated, and openStore refuses to serve it", async () => {
    const { file, store } = await seeded(1);
    await store.close();
    const future = fromTheFuture(file);
    const check = checkSqliteStore(file);
    expect(check.migrations).toMatchObject({ state: "ahead", unknown: [future] });
    expect(check.problems.map((problem) => problem.code)).toEqual(["database_schema_newer"]);
    let refused: unknown;
    try {
      openStore({ path: file });
    } catch (error) {
      refused = error;
    }
    expectCode(refused, "database_schema_newer");
  });

  test("reports a store behind this build as healthy: opening it migrates it", async () => {
    const { file, store } = await seeded(1);
    await store.close();
    const newest = Math.max(...knownMigrations().map((migration) => migration.millis));
    const raw = new Database(file);
    raw.prepare("delete from __drizzle_migrations where created_at = ?").run(newest);
    raw.close();
    const check = checkSqliteStore(file);
    expect(check.migrations).toMatchObject({ state: "behind", missing: [newest] });
    expect(check.healthy).toBe(true);
  });

  test("a file that is not a database, and an empty one, are problems; a missing one is not_found", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "text.db"), "not a database ".repeat(100));
    expect(checkSqliteStore(join(dir, "text.db")).problems[0]?.code).toBe("database_damaged");
    writeFileSync(join(dir, "empty.db"), "");
    expect(checkSqliteStore(join(dir, "empty.db")).problems[0]?.message).toMatch(/no KXM schema/);
    let missing: unknown;
    try {
      checkSqliteStore(join(dir, "none.db"));
    } catch (error) {
      missing = error;
    }
    expectCode(missing, "not_found");
  });
});

describe("restoreSqliteStore", () => {
  const now = new Date("2026-12-02T01:30:45.123Z");

  test("restores into a new path, and over a closed store keeping the one it replaced", async () => {
    const { file, store } = await seeded(4);
    const dir = tempDir();
    const backup = join(dir, "b.db");
    await backupSqliteStore({ from: file, to: backup });
    await store.proposeState(guideProposal({ key: "later", summary: "After the backup" }), at(T0, 99));
    await store.close();

    const fresh = join(dir, "fresh", "kxm.db");
    const first = await restoreSqliteStore({ backup, to: fresh, now });
    expect(first.keptAs).toBeUndefined();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "fresh")).mode & 0o777).toBe(0o700);

    expectCode(await rejection(restoreSqliteStore({ backup, to: file, now })), "backup_refused");
    const second = await restoreSqliteStore({ backup, to: file, now, force: true });
    expect(second.keptAs).toBe(`${file}.before-restore-20261202T013045Z`);
    expect(checkSqliteStore(second.keptAs!).rows.state_proposals).toBe(5);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const restored = await open(file);
    expect(await restored.stateHistory("demo", "later")).toEqual([]);
    expect((await restored.stateHistory("demo", "k.3")).length).toBe(1);
    expect(checkSqliteStore(file).healthy).toBe(true);
  });

  test("refuses while another connection has the database open, and changes nothing", async () => {
    const { file, store } = await seeded(2);
    const dir = tempDir();
    const backup = join(dir, "b.db");
    await backupSqliteStore({ from: file, to: backup });
    const error = await rejection(restoreSqliteStore({ backup, to: file, now, force: true }));
    expectCode(error, "database_in_use");
    expect(readdirSync(join(file, "..")).filter((name) => name.includes("before-restore"))).toEqual([]);
    expect(leftovers(join(file, ".."))).toEqual([]);
    await store.proposeState(guideProposal({ key: "still", summary: "Still serving" }), at(T0, 50));
  });

  test("refuses a damaged backup, a newer one, the database itself, and an orphaned -wal", async () => {
    const { file, store } = await seeded(60);
    await store.close();
    const dir = tempDir();
    const damaged = join(dir, "damaged.db");
    await backupSqliteStore({ from: file, to: damaged });
    corrupt(damaged);
    const target = join(dir, "target.db");
    expectCode(await rejection(restoreSqliteStore({ backup: damaged, to: target, now })), "database_damaged");
    const newer = join(dir, "newer.db");
    await backupSqliteStore({ from: file, to: newer });
    fromTheFuture(newer);
    expectCode(
      await rejection(restoreSqliteStore({ backup: newer, to: target, now })),
      "database_schema_newer",
    );
    expectCode(
      await rejection(restoreSqliteStore({ backup: file, to: file, now, force: true })),
      "backup_refused",
    );
    writeFileSync(`${target}-wal`, "left behind");
    const orphan = await rejection(restoreSqliteStore({ backup: file, to: target, now }));
    expectCode(orphan, "backup_refused");
    expect(orphan.message).toMatch(/without its database/);
    expect(existsSync(target)).toBe(false);
    expectCode(
      await rejection(restoreSqliteStore({ backup: join(dir, "none"), to: target, now })),
      "not_found",
    );
    expect(leftovers(dir)).toEqual([]);
  });
});

/** Changes one letter of `needle` where it is stored in `file`: the page stays well formed, only the text differs. */
function damageText(file: string, needle: string): void {
  const bytes = readFileSync(file);
  const offset = bytes.indexOf(Buffer.from(needle));
  expect(offset, `${needle} is in ${file}`).toBeGreaterThan(0);
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, Buffer.from("X"), 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

describe("the checksum manifest beside a backup", () => {
  const now = new Date("2026-12-02T01:30:45.123Z");

  test("is written 0600 in the sha256sum format, with when the backup started, and sha256sum -c accepts it", async () => {
    const { file } = await seeded(3);
    const dir = tempDir();
    const dest = join(dir, "copy.db");
    const result = await backupSqliteStore({ from: file, to: dest, startedAt: "2026-12-02T01:00:00.000Z" });
    expect(result.manifest).toBe(`${dest}.sha256`);
    expect(statSync(result.manifest).mode & 0o777).toBe(0o600);
    const text = readFileSync(result.manifest, "utf8");
    expect(text).toMatch(/^# startedAt: 2026-12-02T01:00:00.000Z$/m);
    expect(text.trimEnd().split("\n").at(-1)).toBe(`${result.sha256}  copy.db`);
    expect(
      execFileSync("sha256sum", ["-c", "--strict", "copy.db.sha256"], { cwd: dir, encoding: "utf8" }),
    ).toBe("copy.db: OK\n");
    expect(result.check.checksum?.state).toBe("verified");
    expect(checkSqliteStore(dest).checksum).toMatchObject({
      state: "verified",
      startedAt: "2026-12-02T01:00:00.000Z",
    });
    expect(leftovers(dir)).toEqual([]);
  });

  test("catches damage inside a text value, which integrity_check passes", async () => {
    const { file, store } = await seeded(3);
    await store.proposeState(
      guideProposal({ key: "text", summary: "Needle-in-the-haystack value" }),
      at(T0, 9),
    );
    const dir = tempDir();
    const dest = join(dir, "copy.db");
    await backupSqliteStore({ from: file, to: dest });
    damageText(dest, "Needle-in-the-haystack");
    // Without its manifest the damaged copy passes every SQLite check: this is what the manifest is for.
    renameSync(`${dest}.sha256`, join(dir, "aside.sha256"));
    const blind = checkSqliteStore(dest);
    expect(blind.integrity.ok).toBe(true);
    expect(blind.healthy).toBe(true);
    expect(blind.checksum?.state).toBe("missing");

    renameSync(join(dir, "aside.sha256"), `${dest}.sha256`);
    const check = checkSqliteStore(dest);
    expect(check.integrity.ok).toBe(true);
    expect(check.healthy).toBe(false);
    expect(check.checksum?.state).toBe("mismatch");
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]?.code).toBe("database_damaged");
    expect(check.problems[0]?.message).toContain(dest);
    expect(check.problems[0]?.message).not.toContain("\n");
  });

  test("a copy without one is healthy with nothing to verify, and restores with backupChecksum missing", async () => {
    const { file, store } = await seeded(3);
    await store.close();
    const dir = tempDir();
    const plain = join(dir, "plain.db");
    copyFileSync(file, plain);
    const check = checkSqliteStore(plain);
    expect(check.healthy).toBe(true);
    expect(check.checksum).toEqual({ state: "missing", manifest: `${plain}.sha256` });
    // The live database has none either, and that is no problem.
    expect(checkSqliteStore(file).checksum?.state).toBe("missing");
    const restored = await restoreSqliteStore({ backup: plain, to: join(dir, "r", "kxm.db"), now });
    expect(restored.backupChecksum.state).toBe("missing");
  });

  test("one that does not match (another copy's, or no checksum line) is damage, and restore refuses", async () => {
    const { file, store } = await seeded(3);
    const dir = tempDir();
    const older = join(dir, "older.db");
    await backupSqliteStore({ from: file, to: older });
    await store.proposeState(guideProposal({ key: "more", summary: "After the first copy" }), at(T0, 9));
    const newer = join(dir, "newer.db");
    await backupSqliteStore({ from: file, to: newer });
    // What a backup interrupted between its two renames leaves: the new manifest beside the previous copy.
    copyFileSync(`${newer}.sha256`, `${older}.sha256`);
    const mismatch = checkSqliteStore(older);
    expect(mismatch.checksum?.state).toBe("mismatch");
    expect(mismatch.problems.map((problem) => problem.code)).toEqual(["database_damaged"]);
    expect(mismatch.problems[0]?.message).toMatch(/does not match/);

    const target = join(dir, "target", "kxm.db");
    const error = await rejection(restoreSqliteStore({ backup: older, to: target, now }));
    expectCode(error, "database_damaged");
    expect(error.message).toContain(older);
    expect(existsSync(target)).toBe(false);

    writeFileSync(`${newer}.sha256`, "# nothing else\n");
    expect(checkSqliteStore(newer).problems[0]?.message).toMatch(/holds no sha256 line/);
    expect(leftovers(dir)).toEqual([]);
  });

  test("a manifest already there is refused without force and replaced with it, with its copy", async () => {
    const { file } = await seeded(2);
    const dir = tempDir();
    const dest = join(dir, "copy.db");
    writeFileSync(`${dest}.sha256`, "someone's file\n");
    const error = await rejection(backupSqliteStore({ from: file, to: dest }));
    expectCode(error, "backup_refused");
    expect(existsSync(dest)).toBe(false);
    expect(readFileSync(`${dest}.sha256`, "utf8")).toBe("someone's file\n");
    await backupSqliteStore({ from: file, to: dest, force: true });
    expect(checkSqliteStore(dest).checksum?.state).toBe("verified");
    expect(leftovers(dir)).toEqual([]);
  });
});
