import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isKxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, test } from "vitest";
import { openStore } from "../src/index.js";
import { MIGRATIONS_FOLDER } from "../src/migrations.js";
import * as schema from "../src/schema.js";
import type { SqliteKxmStore } from "../src/sqlite/store.js";
import { at, open, T0, tempDir, tempStore } from "./support/temp-store.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const tables = Object.values(schema).filter((value) => is(value, SQLiteTable));
const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
  dialect: string;
  entries: Array<{ idx: number; tag: string; when: number }>;
};

function expectKxmError(error: unknown, code: string): void {
  expect(isKxmError(error) && error.code).toBe(code);
}

describe("schema module", () => {
  test("exports only Drizzle tables, one per table the store uses", () => {
    expect(Object.keys(schema).length).toBe(tables.length);
    expect(tables.map((table) => getTableConfig(table).name).sort()).toEqual([
      "agent_credentials",
      "changes",
      "history_floors",
      "inspector_sessions",
      "item_contributors",
      "items",
      "journal_entries",
      "journal_reviews",
      "operator_credentials",
      "packet_audits",
      "projects",
      "record_versions",
      "revocations",
      "runs",
      "state_proposals",
      "tombstones",
    ]);
  });
});

describe("migrations", () => {
  test("a fresh file gets every table with the schema's columns", async () => {
    const { file } = await tempStore();
    const raw = new Database(file, { readonly: true });
    try {
      for (const table of tables) {
        const config = getTableConfig(table);
        const columns = raw.pragma(`table_info(${config.name})`) as Array<{ name: string }>;
        expect(columns.map((column) => column.name).sort()).toEqual(config.columns.map((c) => c.name).sort());
      }
    } finally {
      raw.close();
    }
  });

  test("the migration journal lists exactly the committed SQL files, each with a snapshot", () => {
    expect(journal.dialect).toBe("sqlite");
    const files = readdirSync(MIGRATIONS_FOLDER).filter((name) => name.endsWith(".sql"));
    expect(journal.entries.map((entry) => `${entry.tag}.sql`).sort()).toEqual(files.sort());
    const snapshots = readdirSync(join(MIGRATIONS_FOLDER, "meta")).filter((name) =>
      name.endsWith("_snapshot.json"),
    );
    expect(snapshots.length).toBe(journal.entries.length);
  });

  test("drizzle-kit generate finds no schema change beyond the committed migrations", () => {
    const dir = tempDir();
    cpSync(MIGRATIONS_FOLDER, join(dir, "out"), { recursive: true });
    // The package's `bin` (not in its exports map), found beside its main entry.
    const bin = join(
      dirname(createRequire(join(packageDir, "package.json")).resolve("drizzle-kit")),
      "bin.cjs",
    );
    // drizzle-kit prefixes --out with "./", so it runs in the temp folder with a relative out folder.
    const output = execFileSync(
      process.execPath,
      [
        bin,
        "generate",
        "--dialect",
        "sqlite",
        "--schema",
        join(packageDir, "src", "schema.ts"),
        "--out",
        "out",
      ],
      { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    expect(output).toContain("No schema changes");
    expect(readdirSync(join(dir, "out")).sort()).toEqual(readdirSync(MIGRATIONS_FOLDER).sort());
  });

  test("reopening applies nothing twice and keeps the data", async () => {
    const dir = tempDir();
    const file = join(dir, "kxm.db");
    const first = openStore({ path: file });
    await first.createProject({ id: "demo" }, at(T0));
    await first.close();
    for (let i = 0; i < 3; i++) await openStore({ path: file }).close();
    const raw = new Database(file, { readonly: true });
    try {
      const applied = raw.prepare("select hash, created_at from __drizzle_migrations").all();
      expect(applied.length).toBe(journal.entries.length);
    } finally {
      raw.close();
    }
    expect(await (await open(file)).listProjects()).toEqual([
      { id: "demo", checkoutRoot: null, createdAt: "2026-09-01T00:00:00.000Z" },
    ]);
  });

  test("the connection runs in WAL mode with foreign keys, a 5 s busy timeout and synchronous=NORMAL", async () => {
    const { store } = await tempStore();
    expect((store as SqliteKxmStore).connectionSettings()).toEqual({
      journalMode: "wal",
      foreignKeys: true,
      busyTimeoutMs: 5000,
      synchronous: 1,
    });
  });

  test("foreign keys are enforced on the store's tables", async () => {
    const { file } = await tempStore();
    const raw = new Database(file);
    try {
      raw.pragma("foreign_keys = ON");
      expect(() =>
        raw
          .prepare("insert into runs (project, id, workflow, status, started_at) values (?, ?, ?, ?, ?)")
          .run("nope", "r1", "wf", "running", T0),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      raw.close();
    }
  });

  test("a database migrated by a newer version is refused, naming the file", async () => {
    const { file, store } = await tempStore();
    await store.close();
    const raw = new Database(file);
    const newest = Math.max(...journal.entries.map((entry) => entry.when));
    raw
      .prepare("insert into __drizzle_migrations (hash, created_at) values (?, ?)")
      .run("future", newest + 1);
    raw.close();
    let error: unknown;
    try {
      openStore({ path: file });
    } catch (caught) {
      error = caught;
    }
    expectKxmError(error, "database_schema_newer");
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain("newer");
  });

  test("a file that is not a database is refused, naming the file", () => {
    const file = join(tempDir(), "not-a.db");
    writeFileSync(file, "this is not a SQLite database, just text long enough to fill a header".repeat(20));
    expect(() => openStore({ path: file })).toThrow(file);
    try {
      openStore({ path: file });
    } catch (error) {
      expectKxmError(error, "internal_error");
    }
  });

  test("a closed store rejects every call with internal_error", async () => {
    const { store } = await tempStore();
    await store.close();
    await store.close();
    await expect(store.listProjects()).rejects.toMatchObject({ code: "internal_error" });
  });
});
