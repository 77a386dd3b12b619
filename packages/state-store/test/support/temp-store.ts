import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type KxmStore, openStore } from "../../src/index.js";

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

/** Opens a store on `file` and closes it after the test. */
export function open(file: string): KxmStore {
  const store = openStore({ path: file });
  cleanups.push(() => store.close());
  return store;
}

/** A store on a new database file in a temp folder. */
export function tempStore(): { store: KxmStore; file: string; dir: string } {
  const dir = tempDir();
  const file = join(dir, "state", "kxm.db");
  return { store: open(file), file, dir };
}

/** `base` plus `ms` milliseconds. */
export function at(base: string, ms = 0): Date {
  return new Date(Date.parse(base) + ms);
}

export const T0 = "2026-09-01T00:00:00.000Z";
