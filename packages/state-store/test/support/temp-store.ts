import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempPostgresDatabase } from "@kxm/test-support";
import { afterEach } from "vitest";
import { type KxmStore, openStore } from "../../src/index.js";
import { openPostgresStore } from "../../src/postgres/open.js";

/**
 * The engine this run tests: the root config runs the store's contract suites twice, once as they are (SQLite)
 * and once with `KXM_TEST_STORE=postgres` against a throwaway PostgreSQL cluster (support/postgres-setup.ts).
 */
export const ENGINE: "sqlite" | "postgres" =
  process.env.KXM_TEST_STORE === "postgres" ? "postgres" : "sqlite";

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh folder under the OS temp folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kxm-state-store-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Opens a store on `location` (a SQLite file, or a PostgreSQL URL) and closes it after the test. */
export async function open(location: string): Promise<KxmStore> {
  const store = location.startsWith("postgres://")
    ? await openPostgresStore({ url: location, maxConnections: 4 })
    : openStore({ path: location });
  cleanups.push(() => store.close());
  return store;
}

/**
 * A store on a new, empty database: a new file in a temp folder, or a new PostgreSQL database. `file` is where
 * to open it again (the file, or the database's URL).
 */
export async function tempStore(): Promise<{ store: KxmStore; file: string; dir: string }> {
  const dir = tempDir();
  const file = ENGINE === "postgres" ? await tempPostgresDatabase() : join(dir, "state", "kxm.db");
  return { store: await open(file), file, dir };
}

/** `base` plus `ms` milliseconds. */
export function at(base: string, ms = 0): Date {
  return new Date(Date.parse(base) + ms);
}

export const T0 = "2026-09-01T00:00:00.000Z";
