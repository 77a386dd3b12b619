// The Biome overrides of biome.json run for real: the repository's biome binary lints small files in a temp folder
// that holds a copy of biome.json and of the plugins it names, and each refusal is expected by file, line and rule.
// What they enforce: environment variables are read in env.ts modules only (apps' and packages' src); the pure
// packages' src (contract, provenance, arbiter, wiki) use no console, read no clock or random source (the
// no-clock plugin: Date.now, new Date(), Date(), Math.random), and touch none of the globals performance, crypto,
// process, fetch, timers or globalThis; the contract's hub client (its own subpath) may call fetch, wait on a
// timer and read Date.now, and nothing else of that list; and no src but the contract's order.ts writes the
// code-unit comparison inline (the one-comparison plugin). Tests are not restricted.
import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIOME = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "biome.cmd" : "biome");

interface Diagnostic {
  /** `plugin` for a GritQL plugin's diagnostic, else the rule, such as `lint/style/noProcessEnv`. */
  rule: string;
  file: string;
  line: number;
}

/** Every plugin path biome.json names, at the top level or in an override. */
function pluginPaths(config: {
  plugins?: (string | { path: string })[];
  overrides?: { plugins?: (string | { path: string })[] }[];
}): string[] {
  const all = [...(config.plugins ?? []), ...(config.overrides ?? []).flatMap((o) => o.plugins ?? [])];
  return [...new Set(all.map((plugin) => (typeof plugin === "string" ? plugin : plugin.path)))];
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Lints `files` in a temp folder with the repository's biome.json and plugins; returns every diagnostic. */
async function lint(files: Record<string, string>): Promise<{ exitCode: number; diagnostics: Diagnostic[] }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "kxm-lint-")));
  made.push(dir);
  const configText = readFileSync(join(ROOT, "biome.json"), "utf8");
  writeFileSync(join(dir, "biome.json"), configText);
  const plugins = pluginPaths(JSON.parse(configText));
  expect(plugins.length).toBeGreaterThan(0);
  for (const plugin of plugins) {
    mkdirSync(dirname(join(dir, plugin)), { recursive: true });
    copyFileSync(join(ROOT, plugin), join(dir, plugin));
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const { exitCode, stdout } = await new Promise<{ exitCode: number; stdout: string }>((resolve, reject) => {
    execFile(
      BIOME,
      ["lint", "--vcs-enabled=false", "--reporter=github", "--max-diagnostics=none", "."],
      { cwd: dir, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, shell: process.platform === "win32" },
      (error, out) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ exitCode: typeof error?.code === "number" ? error.code : 0, stdout: out });
      },
    );
  });
  const diagnostics = [
    ...stdout.matchAll(/^::(?:error|warning|notice) title=([^,]+),file=([^,]+),line=(\d+),/gm),
  ].map(([, rule = "", file = "", line = "0"]) => ({ rule, file: relative(dir, file), line: Number(line) }));
  return { exitCode, diagnostics };
}

function sorted(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map(({ rule, file, line }) => `${file}:${line} ${rule}`).sort();
}

/** A file of one statement per line, so a diagnostic's line names the statement. */
const lines = (...statements: string[]): string => `${statements.join("\n")}\n`;

describe.concurrent("Biome overrides", () => {
  test("a pure package's src: no console, clock, random source, process, network or timer", async () => {
    const { exitCode, diagnostics } = await lint({
      "packages/arbiter/src/impure.ts": lines(
        "export const a = Date.now();",
        "export const b = new Date();",
        "export const c = Date();",
        "export const d = Math.random();",
        "export const e = [1].map(Date.now);",
        "export const f = performance.now();",
        "export const g = crypto.randomUUID();",
        "export const h = process.argv;",
        "export const i = fetch;",
        "export const j = setTimeout;",
        "export const k = globalThis;",
        'console.log("x");',
        "export const l = process.env.HOME;",
      ),
      // Converting what it is given is not reading a clock.
      "packages/arbiter/src/pure.ts": lines(
        'export const a = Date.parse("2026-01-01T00:00:00Z");',
        'export const b = new Date("2026-01-01T00:00:00Z").getTime();',
        "export const c = Math.max(1, 2);",
      ),
    });
    expect(exitCode).not.toBe(0);
    const file = "packages/arbiter/src/impure.ts";
    expect(sorted(diagnostics)).toEqual(
      [
        `${file}:1 plugin`,
        `${file}:2 plugin`,
        `${file}:3 plugin`,
        `${file}:4 plugin`,
        `${file}:5 plugin`,
        `${file}:6 lint/style/noRestrictedGlobals`,
        `${file}:7 lint/style/noRestrictedGlobals`,
        `${file}:8 lint/style/noRestrictedGlobals`,
        `${file}:9 lint/style/noRestrictedGlobals`,
        `${file}:10 lint/style/noRestrictedGlobals`,
        `${file}:11 lint/style/noRestrictedGlobals`,
        `${file}:12 lint/suspicious/noConsole`,
        `${file}:13 lint/style/noRestrictedGlobals`,
        `${file}:13 lint/style/noProcessEnv`,
      ].sort(),
    );
  });

  test.each(["contract", "provenance", "wiki"])("%s's src is held to the same rules", async (pkg) => {
    const { diagnostics } = await lint({
      [`packages/${pkg}/src/x.ts`]: lines("export const a = Date.now();", 'console.log("x");'),
    });
    expect(sorted(diagnostics)).toEqual([
      `packages/${pkg}/src/x.ts:1 plugin`,
      `packages/${pkg}/src/x.ts:2 lint/suspicious/noConsole`,
    ]);
  });

  test("the contract's client may fetch, wait and read Date.now, but no console, process or random source", async () => {
    const { diagnostics } = await lint({
      "packages/contract/src/client.ts": lines(
        "export const a = () => fetch(new URL('http://127.0.0.1/'), { signal: AbortSignal.timeout(1) });",
        "export const b = () => new Promise((resolve) => setTimeout(resolve, 1));",
        "export const c = (now: number = Date.now()) => now;",
        'console.log("x");',
        "export const d = process.argv;",
        "export const e = crypto.randomUUID();",
      ),
    });
    const file = "packages/contract/src/client.ts";
    expect(sorted(diagnostics)).toEqual(
      [
        `${file}:4 lint/suspicious/noConsole`,
        `${file}:5 lint/style/noRestrictedGlobals`,
        `${file}:6 lint/style/noRestrictedGlobals`,
      ].sort(),
    );
  });

  test("process.env only in env.ts modules of apps' and packages' src; tests and other packages' clocks are free", async () => {
    const { diagnostics } = await lint({
      "apps/hub/src/env.ts": lines("export const port = process.env.KXM_PORT;"),
      "apps/hub/src/server.ts": lines("export const port = process.env.KXM_PORT;"),
      "apps/cli/src/commands/x.ts": lines("export const debug = process.env.KXM_DEBUG;"),
      "packages/memory-git/src/env.ts": lines("export const home = process.env.HOME;"),
      "packages/memory-git/src/git.ts": lines(
        "export const env = { ...process.env };",
        "export const at = Date.now();",
        'console.log("x");',
      ),
      "packages/arbiter/test/x.test.ts": lines(
        "export const at = Date.now() + performance.now();",
        'console.log("x", process.env.CI);',
      ),
      "bench/src/main.mjs": lines("export const dir = process.env.KXM_CRANFIELD_DIR;"),
    });
    expect(sorted(diagnostics)).toEqual(
      [
        "apps/cli/src/commands/x.ts:1 lint/style/noProcessEnv",
        "apps/hub/src/server.ts:1 lint/style/noProcessEnv",
        "packages/memory-git/src/git.ts:1 lint/style/noProcessEnv",
      ].sort(),
    );
  });
  test("the code-unit comparison has one home: an inline copy is refused in every src, and in no test", async () => {
    const inline = lines('export const s = ["b", "a"].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));');
    const { diagnostics } = await lint({
      "packages/arbiter/src/sort.ts": inline,
      "apps/hub/src/sort.ts": inline,
      "bench/src/sort.mjs": inline,
      "reliability/src/sort.mjs": inline,
      "packages/contract/src/order.ts": lines(
        "export function compareCodeUnits(a: string, b: string): number {",
        "  return a < b ? -1 : a > b ? 1 : 0;",
        "}",
      ),
      "apps/hub/test/sort.test.ts": inline,
      // A numeric sort is not the code-unit comparison's copy.
      "apps/hub/src/numbers.ts": lines("export const n = [2, 1].sort((a, b) => a - b);"),
    });
    expect(sorted(diagnostics)).toEqual(
      [
        "apps/hub/src/sort.ts:1 plugin",
        "bench/src/sort.mjs:1 plugin",
        "packages/arbiter/src/sort.ts:1 plugin",
        "reliability/src/sort.mjs:1 plugin",
      ].sort(),
    );
  });
});
