// What the root scripts' tests share: this checkout's folder, a temp folder per test file, and pnpm as the test
// runner was started.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";

/** The root of this checkout. */
export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * A fresh folder in the system temp folder (its real path, so git and pnpm name it alike), removed after the test
 * file's last test, given `cleanupMs` to do so.
 */
export function suiteFolder(prefix: string, cleanupMs?: number): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  afterAll(() => rmSync(dir, { recursive: true, force: true }), cleanupMs);
  return dir;
}

/**
 * The command and arguments that run pnpm with `args`: the pnpm this test run was started by (`npm test` may run
 * it through npx, so it need not be on PATH), else the one on PATH.
 */
export function pnpmCommand(args: readonly string[]): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath !== undefined && /pnpm/.test(execPath)
    ? [process.execPath, [execPath, ...args]]
    : ["pnpm", [...args]];
}
