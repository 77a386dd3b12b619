import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import { afterAll, describe, expect, test } from "vitest";
import { openStore } from "../src/index.js";

// Regression: a path under /proc made Node's recursive mkdir spin forever, so the hub never started and ignored
// SIGTERM. Every unusable path must be refused at once, by a check that does not depend on permission bits.

const dir = mkdtempSync(join(tmpdir(), "kxm-db-path-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "folder.db"));
writeFileSync(join(dir, "file"), "not a folder");

const BAD: [string, string, RegExp][] = [
  ["a new folder under /proc", "/proc/kxm/kxm.db", /proc file system/],
  ["two new folders under /proc", "/proc/kxm/a/b/kxm.db", /proc file system/],
  ["a missing folder in /proc/self", "/proc/self/x/y.db", /proc file system/],
  ["an existing /proc file", "/proc/self/status", /proc file system/],
  ["a path under /sys", "/sys/kxm/x.db", /sysfs file system/],
  ["a NUL byte", join(dir, "a\0b.db"), /NUL byte/],
  ["a parent that is a file", join(dir, "file", "x.db"), /"[^"]*file" is not a folder/],
  ["a grandparent that is a file", join(dir, "file", "a", "x.db"), /"[^"]*file" is not a folder/],
  ["a folder", join(dir, "folder.db"), /it is a folder/],
  ["a device", "/dev/null", /not a regular file/],
  ["a name over 255 bytes", join(dir, "é".repeat(128), "x.db"), /NAME_MAX/],
  ["over PATH_MAX", join(dir, ...Array.from({ length: 25 }, () => "p".repeat(200))), /PATH_MAX/],
];

describe("openStore refuses a path that cannot hold a database", () => {
  test.for(BAD)("%s", ([, path, reason]) => {
    const started = performance.now();
    let error: unknown;
    try {
      openStore({ path }).close();
    } catch (caught) {
      error = caught;
    }
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(isKxmError(error) && error.code).toBe("database_path_unusable");
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).not.toContain("\0");
    expect(existsSync("/proc/kxm")).toBe(false);
  });

  test("missing folders are still made, one at a time, and the store opens", async () => {
    const path = join(dir, "a", "b", "c", "kxm.db");
    const store = openStore({ path });
    await store.close();
    expect(existsSync(path)).toBe(true);
  });
});
