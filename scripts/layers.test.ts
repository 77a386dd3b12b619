// The layer check (`pnpm run layers`, rules in .dependency-cruiser.cjs) run for real: each rule against a small
// workspace in a temp folder that breaks it, one clean workspace, and this repository. The tests run the `layers`
// script's own arguments with the repository's depcruise binary, so they check what CI runs.
import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = ".dependency-cruiser.cjs";
const DEPCRUISE = join(
  ROOT,
  "node_modules",
  ".bin",
  process.platform === "win32" ? "depcruise.cmd" : "depcruise",
);

/** The `layers` script's arguments (after `depcruise`), so a test runs exactly what `pnpm run layers` runs. */
function layersArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [bin, ...args] = (scripts.layers ?? "").trim().split(/\s+/);
  if (bin !== "depcruise") throw new Error(`the layers script should run depcruise, not ${bin}`);
  return args;
}

interface Violation {
  rule: string;
  from: string;
  /** Empty for a cycle: the reporter lists the cycle on the following lines. */
  to: string;
}

interface Run {
  exitCode: number;
  output: string;
  violations: Violation[];
  modules: number;
  dependencies: number;
}

function parseRun(exitCode: number, output: string): Run {
  const violations = [...output.matchAll(/^ {2}(?:error|warn|info) ([\w-]+): (\S+) →[ \t]*(\S*)$/gm)].map(
    ([, rule = "", from = "", to = ""]) => ({ rule, from, to }),
  );
  const counts = /(\d+) modules, (\d+) dependencies cruised/.exec(output);
  return {
    exitCode,
    output,
    violations,
    modules: Number(counts?.[1] ?? Number.NaN),
    dependencies: Number(counts?.[2] ?? Number.NaN),
  };
}

/** Runs depcruise in `cwd` with the layers script's arguments plus `extra`; never throws on a non-zero exit. */
function depcruise(
  cwd: string,
  extra: string[] = [],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      DEPCRUISE,
      [...layersArgs(), ...extra],
      { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, shell: process.platform === "win32" },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ exitCode: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

async function layers(cwd: string): Promise<Run> {
  const { exitCode, stdout, stderr } = await depcruise(cwd);
  return parseRun(exitCode, `${stdout}\n${stderr}`);
}

interface CruiseJson {
  summary: { totalCruised: number; totalDependenciesCruised: number; violations: unknown[] };
  modules: {
    source: string;
    dependencies: { module: string; resolved: string; dependencyTypes: string[] }[];
  }[];
}

async function layersJson(cwd: string): Promise<CruiseJson> {
  const { exitCode, stdout, stderr } = await depcruise(cwd, ["--output-type", "json"]);
  if (exitCode !== 0) throw new Error(`depcruise exited ${exitCode}: ${stderr}`);
  return JSON.parse(stdout) as CruiseJson;
}

function edges(result: CruiseJson): string[] {
  return result.modules.flatMap((m) => m.dependencies.map((d) => `${m.source} -> ${d.resolved}`));
}

// ---------------------------------------------------------------------------------------------------------------
// Fake workspaces

type Files = Record<string, string>;

interface ManifestFields {
  exports?: unknown;
  /** Names: a workspace package gets `workspace:*`, an npm package a version. */
  dependencies?: readonly string[];
  devDependencies?: readonly string[];
}

function manifest(name: string, fields: ManifestFields = {}): string {
  const ranges = (names: readonly string[] = []) =>
    Object.fromEntries(names.map((dep) => [dep, dep.startsWith("@kxm/") ? "workspace:*" : "1.0.0"]));
  const { exports = { ".": SOURCE_EXPORT }, dependencies = [], devDependencies = [] } = fields;
  return `${JSON.stringify(
    {
      name,
      type: "module",
      exports,
      ...(dependencies.length === 0 ? {} : { dependencies: ranges(dependencies) }),
      ...(devDependencies.length === 0 ? {} : { devDependencies: ranges(devDependencies) }),
    },
    null,
    2,
  )}\n`;
}

/** An installed npm package (a stub) at `folder`, e.g. `node_modules/left-pad` or `apps/hub/node_modules/vitest`. */
function installed(folder: string): Files {
  const name = folder.replace(/^(.*\/)?node_modules\//, "");
  return {
    [`${folder}/package.json`]: `${JSON.stringify({ name, main: "index.js" })}\n`,
    [`${folder}/index.js`]: "module.exports = {};\n",
  };
}

/** The export shape every KXM package uses: source for tests and tools, dist at run time. */
const SOURCE_EXPORT = {
  "@kxm/source": "./src/index.ts",
  types: "./dist/index.d.ts",
  default: "./dist/index.js",
};

/** The contract's two entries: the pure root and the hub client's subpath, as packages/contract exports them. */
const CONTRACT_EXPORTS = {
  ".": SOURCE_EXPORT,
  "./client": { "@kxm/source": "./src/client.ts", types: "./dist/client.d.ts", default: "./dist/client.js" },
};

/**
 * A small, legal workspace: the three pure packages and one app, written with the TypeScript the cruiser must
 * parse (`import type`, `satisfies`, generics, `.js` specifiers that resolve to `.ts` files). Each manifest lists
 * what its src imports.
 */
const BASE: Files = {
  "packages/contract/package.json": manifest("@kxm/contract", { exports: CONTRACT_EXPORTS }),
  "packages/contract/src/index.ts": [
    'export { LIMITS, type Limits } from "./limits.js";',
    'export type { Item } from "./item.js";',
    "",
  ].join("\n"),
  "packages/contract/src/limits.ts": [
    "export const LIMITS = { summaryChars: 4_000 } as const satisfies Record<string, number>;",
    "export type Limits = typeof LIMITS;",
    "",
  ].join("\n"),
  "packages/contract/src/item.ts": [
    'import type { Limits } from "./limits.js";',
    "export interface Item<K extends string = string> { kind: K; limits?: Limits }",
    "",
  ].join("\n"),
  // The hub client: fetch is a global, so it imports only the contract's own files.
  "packages/contract/src/client.ts": [
    'import { LIMITS } from "./limits.js";',
    "export const createHubClient = (baseUrl: string) => ({ baseUrl, get: () => fetch(baseUrl), LIMITS });",
    "",
  ].join("\n"),
  "packages/provenance/package.json": manifest("@kxm/provenance", { dependencies: ["@kxm/contract"] }),
  "packages/provenance/src/index.ts": [
    'import { LIMITS } from "@kxm/contract";',
    "export const cap = (s: string): string => s.slice(0, LIMITS.summaryChars);",
    "",
  ].join("\n"),
  "packages/arbiter/package.json": manifest("@kxm/arbiter", { dependencies: ["@kxm/contract"] }),
  "packages/arbiter/src/index.ts": [
    'import type { Item } from "@kxm/contract";',
    'import { LIMITS } from "@kxm/contract";',
    'export { rank } from "./rank.js";',
    "export const budget: number = LIMITS.summaryChars;",
    'export type Ranked = Item<"state">;',
    "",
  ].join("\n"),
  "packages/arbiter/src/rank.ts": [
    "export function rank<T extends { id: string }>(items: readonly T[]): T[] {",
    "  return [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));",
    "}",
    "",
  ].join("\n"),
  "apps/hub/package.json": manifest("@kxm/hub", {
    dependencies: ["@kxm/arbiter", "@kxm/contract", "fastify"],
  }),
  "apps/hub/src/index.ts": [
    'import { readFileSync } from "node:fs";',
    'import Fastify from "fastify";',
    'import { budget } from "@kxm/arbiter";',
    'import { createHubClient } from "@kxm/contract/client";',
    "export function buildHub() { return { app: Fastify(), budget, read: readFileSync, createHubClient }; }",
    "",
  ].join("\n"),
};

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes BASE plus `files` (an empty string deletes a BASE file) into a new temp folder with a copy of the real
 * config, and links every workspace package (packages/*, apps/*, and top-level folders such as bench/) into every
 * other's node_modules, as pnpm's symlinks do.
 */
function workspace(files: Files): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "kxm-layers-")));
  made.push(dir);
  copyFileSync(join(ROOT, CONFIG), join(dir, CONFIG));
  const all: Files = { ...BASE, ...files };
  for (const [path, text] of Object.entries(all)) {
    if (text === "") continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packageDirs = Object.keys(all)
    .filter((path) => /^((packages|apps)\/[^/]+|[^/]+)\/package\.json$/.test(path) && all[path] !== "")
    .map((path) => dirname(path));
  for (const from of packageDirs) {
    for (const to of packageDirs) {
      if (from === to) continue;
      const { name } = JSON.parse(all[`${to}/package.json`] ?? "{}") as { name: string };
      const link = join(dir, from, "node_modules", name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(relative(dirname(link), join(dir, to)), link, "dir");
    }
  }
  return dir;
}

function sorted(violations: readonly Violation[]): string[] {
  return violations.map(({ rule, from, to }) => `${rule}: ${from} -> ${to}`).sort();
}

// ---------------------------------------------------------------------------------------------------------------

describe.concurrent("layer check on a clean workspace", () => {
  test("passes when pure packages import only @kxm/contract, apps use I/O, and tests read files", async () => {
    const dir = workspace({
      // Tests of a pure package may read fixtures and docs, and import their own src by a relative path.
      "packages/contract/test/docs.test.ts": [
        'import { readFileSync } from "node:fs";',
        'import { LIMITS } from "../src/limits.js";',
        'export const doc = readFileSync("README.md", "utf8").length + LIMITS.summaryChars;',
        "",
      ].join("\n"),
      // A package that is not pure may touch files and processes, and use a deliberate non-index subpath.
      "packages/provenance/package.json": manifest("@kxm/provenance", {
        exports: {
          ".": SOURCE_EXPORT,
          "./schema": { "@kxm/source": "./src/schema.ts", default: "./dist/schema.js" },
        },
        dependencies: ["@kxm/contract", "@noble/hashes"],
      }),
      "packages/provenance/src/schema.ts": "export const schema = 1;\n",
      // An npm package its row names, installed (resolved into node_modules) or not.
      "packages/provenance/src/hash.ts": 'export { sha256 } from "@noble/hashes/sha2.js";\n',
      ...installed("node_modules/@noble/hashes"),
      "node_modules/@noble/hashes/sha2.js": "export const sha256 = 1;\n",
      // Tests may import devDependencies, and workspace packages their src may not.
      "packages/arbiter/package.json": manifest("@kxm/arbiter", {
        dependencies: ["@kxm/contract"],
        devDependencies: ["@kxm/provenance", "vitest"],
      }),
      ...installed("packages/arbiter/node_modules/vitest"),
      "packages/arbiter/test/rank.test.ts":
        'import { test } from "vitest";\nimport { cap } from "@kxm/provenance";\ntest("cap", () => cap(""));\n',
      "packages/memory-git/package.json": manifest("@kxm/memory-git", {
        dependencies: ["@kxm/contract", "@kxm/provenance"],
      }),
      "packages/memory-git/src/index.ts": [
        'import { execFileSync } from "node:child_process";',
        'import { readFileSync } from "node:fs";',
        'import { cap } from "@kxm/provenance";',
        'import { schema } from "@kxm/provenance/schema";',
        "export const head = () => cap(String(execFileSync)) + readFileSync.name + schema;",
        "",
      ].join("\n"),
      "scripts/dev.mjs": 'import { spawnSync } from "node:child_process";\nspawnSync("true");\n',
      // A workspace package outside packages/ and apps/ (like bench/) with its own src: its files import each other.
      "bench/package.json":
        '{ "name": "@kxm/bench", "type": "module", "dependencies": { "@kxm/provenance": "*" } }\n',
      "bench/src/main.mjs":
        'import { run } from "./run.mjs";\nimport { cap } from "@kxm/provenance";\nrun(cap);\n',
      "bench/src/run.mjs": "export const run = (f) => f;\n",
    });
    const run = await layers(dir);
    expect(run.output).toContain("no dependency violations found");
    expect(run.violations).toEqual([]);
    expect(run.exitCode).toBe(0);
    // 19 source files (config and scripts included) plus node:fs, node:child_process, fastify, and the
    // installed @noble/hashes/sha2.js and vitest/index.js.
    expect(run.modules).toBe(23);
  });

  test("parses TypeScript and resolves @kxm/contract to its source entry through the symlink", async () => {
    const result = await layersJson(workspace({}));
    expect(result.summary.violations).toEqual([]);
    const sources = result.modules.map((m) => m.source);
    for (const file of Object.keys(BASE).filter((path) => path.endsWith(".ts")))
      expect(sources).toContain(file);
    expect(edges(result)).toEqual(
      expect.arrayContaining([
        "packages/arbiter/src/index.ts -> packages/contract/src/index.ts",
        "packages/provenance/src/index.ts -> packages/contract/src/index.ts",
        "apps/hub/src/index.ts -> packages/arbiter/src/index.ts",
        "packages/arbiter/src/index.ts -> packages/arbiter/src/rank.ts",
        "packages/contract/src/index.ts -> packages/contract/src/limits.ts",
        "packages/contract/src/item.ts -> packages/contract/src/limits.ts",
      ]),
    );
  });
});

describe.concurrent("layer check: pure-package-io", () => {
  /**
   * One file per forbidden import, so each is reported on its own. The package declares better-sqlite3 and fastify,
   * so the only rule they break is pure-package-io's.
   */
  const ioFiles = (pkg: string): Files => ({
    [`packages/${pkg}/package.json`]: manifest(`@kxm/${pkg}`, {
      ...(pkg === "contract" ? { exports: CONTRACT_EXPORTS } : {}),
      dependencies: [...(pkg === "contract" ? [] : ["@kxm/contract"]), "better-sqlite3", "fastify"],
    }),
    // Built-ins that do no file or network I/O are refused too: os (the host), crypto (a random source).
    [`packages/${pkg}/src/os.ts`]: 'import { hostname } from "node:os";\nexport const h = hostname;\n',
    [`packages/${pkg}/src/crypto.ts`]:
      'import { randomUUID } from "node:crypto";\nexport const id = randomUUID;\n',
    [`packages/${pkg}/src/url.ts`]: 'import { fileURLToPath } from "url";\nexport const f = fileURLToPath;\n',
    [`packages/${pkg}/src/fs-node.ts`]:
      'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
    [`packages/${pkg}/src/fs-bare.ts`]: 'import * as fs from "fs";\nexport const r = fs.readFileSync;\n',
    [`packages/${pkg}/src/fs-promises.ts`]:
      'import { readFile } from "node:fs/promises";\nexport const r = readFile;\n',
    [`packages/${pkg}/src/fs-promises-bare.ts`]: 'export { readFile } from "fs/promises";\n',
    [`packages/${pkg}/src/child-process.ts`]:
      'export async function run() {\n  const { spawn } = await import("node:child_process");\n  return spawn;\n}\n',
    [`packages/${pkg}/src/net.ts`]:
      'import { createServer } from "node:net";\nexport const s = createServer;\n',
    [`packages/${pkg}/src/sqlite.ts`]:
      'import Database from "better-sqlite3";\nexport const db = Database;\n',
    [`packages/${pkg}/src/server.ts`]: 'import Fastify from "fastify";\nexport const app = Fastify;\n',
    // Installed, so this import resolves into node_modules; fastify stays unresolved. Both must be caught.
    "node_modules/better-sqlite3/package.json": '{ "name": "better-sqlite3", "main": "index.js" }\n',
    "node_modules/better-sqlite3/index.js": "module.exports = function Database() {};\n",
    // The package's tests may do I/O: not a violation.
    [`packages/${pkg}/test/io.test.ts`]:
      'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
  });

  test.each(["contract", "provenance", "arbiter", "wiki"])(
    "fails when %s/src imports any Node built-in (fs, os, crypto, url, ...), better-sqlite3 or fastify",
    async (pkg) => {
      const run = await layers(workspace(ioFiles(pkg)));
      expect(run.exitCode).not.toBe(0);
      const src = `packages/${pkg}/src`;
      expect(sorted(run.violations)).toEqual(
        [
          `pure-package-io: ${src}/child-process.ts -> child_process`,
          `pure-package-io: ${src}/crypto.ts -> crypto`,
          `pure-package-io: ${src}/os.ts -> os`,
          `pure-package-io: ${src}/url.ts -> url`,
          `pure-package-io: ${src}/fs-bare.ts -> fs`,
          `pure-package-io: ${src}/fs-node.ts -> fs`,
          `pure-package-io: ${src}/fs-promises-bare.ts -> fs/promises`,
          `pure-package-io: ${src}/fs-promises.ts -> fs/promises`,
          `pure-package-io: ${src}/net.ts -> net`,
          `pure-package-io: ${src}/server.ts -> fastify`,
          `pure-package-io: ${src}/sqlite.ts -> node_modules/better-sqlite3/index.js`,
        ].sort(),
      );
    },
  );
});

describe.concurrent("layer check: allowed-dependencies", () => {
  test("fails when a package's src imports a workspace package, npm package or built-in its row does not name", async () => {
    // Every import below is declared in the importer's manifest: the table alone refuses them.
    const run = await layers(
      workspace({
        "packages/contract/package.json": manifest("@kxm/contract", {
          exports: CONTRACT_EXPORTS,
          dependencies: ["zod", "@kxm/state-store", "left-pad"],
        }),
        "packages/contract/src/store.ts":
          'import { open } from "@kxm/state-store";\nexport const o = open;\n',
        "packages/contract/src/pad.ts": 'import pad from "left-pad";\nexport const p = pad;\n',
        ...installed("node_modules/left-pad"),
        // zod is the contract's one npm package: legal, installed or not.
        "packages/contract/src/schema.ts": 'import { z } from "zod";\nexport const s = z.string();\n',
        "packages/state-store/package.json": manifest("@kxm/state-store", {
          dependencies: ["@kxm/contract", "@kxm/provenance"],
        }),
        "packages/state-store/src/index.ts":
          'import { readFileSync } from "node:fs";\nexport const open = readFileSync;\n',
        "packages/arbiter/package.json": manifest("@kxm/arbiter", {
          dependencies: ["@kxm/contract", "@kxm/provenance", "lodash"],
        }),
        "packages/arbiter/src/admit.ts": 'import { cap } from "@kxm/provenance";\nexport const c = cap;\n',
        "packages/arbiter/src/lodash.ts":
          'import sortBy from "lodash/sortBy.js";\nexport const s = sortBy;\n',
        "packages/wiki/package.json": manifest("@kxm/wiki", {
          dependencies: ["@kxm/contract", "@kxm/memory-git"],
        }),
        "packages/wiki/src/index.ts": 'export { head } from "@kxm/memory-git";\n',
        "packages/memory-git/package.json": manifest("@kxm/memory-git", {
          dependencies: ["@kxm/contract", "@kxm/provenance"],
        }),
        // fs and child_process are in memory-git's row; http is not.
        "packages/memory-git/src/index.ts": [
          'import { execFileSync } from "node:child_process";',
          'import { readFileSync } from "node:fs";',
          'import { createServer } from "node:http";',
          "export const head = [execFileSync, readFileSync, createServer];",
          "",
        ].join("\n"),
        "packages/mcp/package.json": manifest("@kxm/mcp", {
          dependencies: ["@kxm/contract", "@kxm/provenance"],
        }),
        "packages/mcp/src/index.ts": [
          'import { readFileSync } from "node:fs";',
          'import { cap } from "@kxm/provenance";',
          "export const tool = [readFileSync, cap];",
          "",
        ].join("\n"),
        // An app may import any built-in, and the packages its row names.
        "apps/hub/src/server.ts":
          'import { createServer } from "node:http";\nexport const s = createServer;\n',
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual(
      [
        "allowed-dependencies: packages/arbiter/src/admit.ts -> packages/provenance/src/index.ts",
        "allowed-dependencies: packages/arbiter/src/lodash.ts -> lodash/sortBy.js",
        "allowed-dependencies: packages/contract/src/pad.ts -> node_modules/left-pad/index.js",
        "allowed-dependencies: packages/contract/src/store.ts -> packages/state-store/src/index.ts",
        "allowed-dependencies: packages/mcp/src/index.ts -> fs",
        "allowed-dependencies: packages/mcp/src/index.ts -> packages/provenance/src/index.ts",
        "allowed-dependencies: packages/memory-git/src/index.ts -> http",
        "allowed-dependencies: packages/wiki/src/index.ts -> packages/memory-git/src/index.ts",
      ].sort(),
    );
  });

  test("refuses to run when a workspace package with a src folder has no row", async () => {
    const run = await layers(
      workspace({
        "packages/extra/package.json": manifest("@kxm/extra"),
        "packages/extra/src/index.ts": "export const extra = 1;\n",
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(run.output).toContain("no row in ALLOWED");
    expect(run.output).toContain("packages/extra");
    expect(run.output).not.toContain("no dependency violations found");
  });
});

describe.concurrent("layer check: src-dev-dependency and src-undeclared-dependency", () => {
  test("fails when src imports a devDependency or a package its manifest does not list; tests may", async () => {
    const run = await layers(
      workspace({
        // The issue's case: the arbiter's src importing @kxm/provenance, only a devDependency of the arbiter.
        "packages/arbiter/package.json": manifest("@kxm/arbiter", {
          dependencies: ["@kxm/contract"],
          devDependencies: ["@kxm/provenance"],
        }),
        "packages/arbiter/src/admit.ts": 'import { cap } from "@kxm/provenance";\nexport const c = cap;\n',
        "packages/arbiter/test/admit.test.ts":
          'import { cap } from "@kxm/provenance";\nexport const c = cap;\n',
        // memory-git may import provenance (its row names it), but lists it under devDependencies only.
        "packages/memory-git/package.json": manifest("@kxm/memory-git", {
          dependencies: ["@kxm/contract"],
          devDependencies: ["@kxm/provenance"],
        }),
        "packages/memory-git/src/index.ts":
          'import { cap } from "@kxm/provenance";\nexport const head = cap;\n',
        // An npm devDependency, installed in the app's node_modules as pnpm does.
        "apps/hub/package.json": manifest("@kxm/hub", {
          dependencies: ["@kxm/arbiter", "@kxm/contract", "fastify"],
          devDependencies: ["vitest", "@kxm/memory-git"],
        }),
        ...installed("apps/hub/node_modules/vitest"),
        "apps/hub/src/test-helper.ts": 'import { expect } from "vitest";\nexport const e = expect;\n',
        "apps/hub/test/hub.test.ts": [
          'import { expect } from "vitest";',
          'import { head } from "@kxm/memory-git";',
          "export const e = [expect, head];",
          "",
        ].join("\n"),
        // Undeclared: provenance (the hub's row allows it) and pino, found only in the root's node_modules.
        "apps/hub/src/admit.ts": 'import { cap } from "@kxm/provenance";\nexport const c = cap;\n',
        "apps/hub/src/log.ts": 'import pino from "pino";\nexport const log = pino;\n',
        ...installed("node_modules/pino"),
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual(
      [
        "allowed-dependencies: packages/arbiter/src/admit.ts -> packages/provenance/src/index.ts",
        "src-dev-dependency: packages/arbiter/src/admit.ts -> packages/provenance/src/index.ts",
        "src-dev-dependency: packages/memory-git/src/index.ts -> packages/provenance/src/index.ts",
        "src-dev-dependency: apps/hub/src/test-helper.ts -> apps/hub/node_modules/vitest/index.js",
        "src-undeclared-dependency: apps/hub/src/admit.ts -> packages/provenance/src/index.ts",
        "src-undeclared-dependency: apps/hub/src/log.ts -> node_modules/pino/index.js",
      ].sort(),
    );
  });
});

describe.concurrent("layer check: contract-client-subpath", () => {
  test("fails when the contract's root or a pure package imports the hub client; apps and mcp may", async () => {
    const run = await layers(
      workspace({
        "packages/contract/src/index.ts": [
          'export { LIMITS, type Limits } from "./limits.js";',
          'export type { Item } from "./item.js";',
          'export { createHubClient } from "./client.js";',
          "",
        ].join("\n"),
        "packages/contract/src/routes.ts":
          'import type { createHubClient } from "./client.js";\nexport type C = typeof createHubClient;\n',
        "packages/arbiter/src/remote.ts":
          'import { createHubClient } from "@kxm/contract/client";\nexport const c = createHubClient;\n',
        "packages/mcp/package.json": manifest("@kxm/mcp", { dependencies: ["@kxm/contract"] }),
        "packages/mcp/src/index.ts":
          'import { createHubClient } from "@kxm/contract/client";\nexport const c = createHubClient;\n',
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual(
      [
        "contract-client-subpath: packages/arbiter/src/remote.ts -> packages/contract/src/client.ts",
        "contract-client-subpath: packages/contract/src/index.ts -> packages/contract/src/client.ts",
        "contract-client-subpath: packages/contract/src/routes.ts -> packages/contract/src/client.ts",
      ].sort(),
    );
  });
});

describe.concurrent("layer check: package-imports-app", () => {
  test("fails when a package imports an app by name (resolved or not) or by a relative path", async () => {
    const run = await layers(
      workspace({
        // Declared, so that the imports break package-imports-app alone.
        "packages/arbiter/package.json": manifest("@kxm/arbiter", {
          dependencies: ["@kxm/contract", "@kxm/hub", "@kxm/cli"],
        }),
        "packages/provenance/package.json": manifest("@kxm/provenance", {
          dependencies: ["@kxm/contract", "@kxm/runtime-dispatch"],
        }),
        "apps/hub/test/helpers.ts": "export const hubHelper = 1;\n",
        "packages/arbiter/src/hub.ts": 'import { buildHub } from "@kxm/hub";\nexport const h = buildHub;\n',
        "packages/arbiter/src/cli.ts": 'import "@kxm/cli";\n',
        "packages/provenance/src/dispatch.ts": 'export * from "@kxm/runtime-dispatch/prompt";\n',
        "packages/provenance/test/app.test.ts":
          'import { hubHelper } from "../../../apps/hub/test/helpers.js";\nexport const x = hubHelper;\n',
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual(
      [
        "package-imports-app: packages/arbiter/src/cli.ts -> @kxm/cli",
        "package-imports-app: packages/arbiter/src/hub.ts -> apps/hub/src/index.ts",
        "package-imports-app: packages/provenance/src/dispatch.ts -> @kxm/runtime-dispatch/prompt",
        "package-imports-app: packages/provenance/test/app.test.ts -> apps/hub/test/helpers.ts",
      ].sort(),
    );
  });
});

describe.concurrent("layer check: no-src-import", () => {
  test("fails on a /src subpath, a relative path into another package's src, and an exported src wildcard", async () => {
    const run = await layers(
      workspace({
        // A wildcard that exposes src: the import resolves, but to a file the exports map does not name.
        "packages/provenance/package.json": manifest("@kxm/provenance", {
          exports: { ".": SOURCE_EXPORT, "./src/*.js": { "@kxm/source": "./src/*.ts" } },
          dependencies: ["@kxm/contract"],
        }),
        "packages/provenance/src/redact.ts": "export const redact = (s: string) => s;\n",
        "apps/hub/package.json": manifest("@kxm/hub", {
          dependencies: ["@kxm/arbiter", "@kxm/contract", "@kxm/provenance", "fastify"],
        }),
        "packages/arbiter/src/subpath.ts":
          'import { LIMITS } from "@kxm/contract/src/limits.js";\nexport { LIMITS };\n',
        "packages/arbiter/src/relative.ts":
          'import { LIMITS } from "../../contract/src/limits.js";\nexport { LIMITS };\n',
        "packages/arbiter/src/relative-index.ts": 'export { LIMITS } from "../../contract/src/index.js";\n',
        "apps/hub/src/wildcard.ts":
          'import { redact } from "@kxm/provenance/src/redact.js";\nexport { redact };\n',
        "apps/hub/src/deep.ts":
          'import { rank } from "../../../packages/arbiter/src/rank.js";\nexport { rank };\n',
        "scripts/bench.ts":
          'import { LIMITS } from "../packages/contract/src/limits.js";\nexport { LIMITS };\n',
        // Legal: a package's test imports its own src.
        "packages/arbiter/test/rank.test.ts": 'import { rank } from "../src/rank.js";\nexport { rank };\n',
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual(
      [
        "no-src-import: apps/hub/src/deep.ts -> packages/arbiter/src/rank.ts",
        "no-src-import: packages/arbiter/src/relative-index.ts -> packages/contract/src/index.ts",
        "no-src-import: packages/arbiter/src/relative.ts -> packages/contract/src/limits.ts",
        "no-src-import: packages/arbiter/src/subpath.ts -> @kxm/contract/src/limits.js",
        "no-src-import: apps/hub/src/wildcard.ts -> packages/provenance/src/redact.ts",
        "no-src-import: scripts/bench.ts -> packages/contract/src/limits.ts",
      ].sort(),
    );
  });
});

describe.concurrent("layer check: no-circular", () => {
  test("fails on a cycle inside a package, a type-only cycle, and a cycle across packages", async () => {
    const run = await layers(
      workspace({
        "packages/arbiter/src/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
        "packages/arbiter/src/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
        "packages/provenance/src/x.ts": 'import type { Y } from "./y.js";\nexport interface X { y?: Y }\n',
        "packages/provenance/src/y.ts": 'import type { X } from "./x.js";\nexport interface Y { x?: X }\n',
        // Declared, so the cross-package import breaks the contract's allowed list and closes a cycle, nothing else.
        "packages/contract/package.json": manifest("@kxm/contract", {
          exports: CONTRACT_EXPORTS,
          dependencies: ["@kxm/arbiter"],
        }),
        "packages/contract/src/index.ts": [
          'export { LIMITS, type Limits } from "./limits.js";',
          'export type { Item } from "./item.js";',
          'export { budget } from "@kxm/arbiter";',
          "",
        ].join("\n"),
      }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations.filter((v) => v.rule !== "no-circular"))).toEqual([
      "allowed-dependencies: packages/contract/src/index.ts -> packages/arbiter/src/index.ts",
    ]);
    const cycles = [
      ["packages/arbiter/src/a.ts", "packages/arbiter/src/b.ts"],
      ["packages/provenance/src/x.ts", "packages/provenance/src/y.ts"],
      ["packages/contract/src/index.ts", "packages/arbiter/src/index.ts"],
    ];
    for (const cycle of cycles) {
      expect(
        run.violations.some((v) => cycle.includes(v.from)),
        cycle.join(" <-> "),
      ).toBe(true);
    }
  });
});

describe.concurrent("layer check: no-unresolvable-relative", () => {
  test("fails when a relative import resolves to no file, so no edge goes unseen", async () => {
    const run = await layers(
      workspace({ "packages/arbiter/src/lost.ts": 'import { gone } from "./gone.js";\nexport { gone };\n' }),
    );
    expect(run.exitCode).not.toBe(0);
    expect(sorted(run.violations)).toEqual([
      "no-unresolvable-relative: packages/arbiter/src/lost.ts -> ./gone.js",
    ]);
  });
});

// A whole-repository cruise takes seconds alone and far longer beside the fake workspaces' runs on a small machine.
const REPOSITORY_TIMEOUT_MS = 120_000;

describe.concurrent("layer check on this repository", () => {
  test("passes, having cruised modules and dependencies", { timeout: REPOSITORY_TIMEOUT_MS }, async () => {
    const run = await layers(ROOT);
    expect(run.violations).toEqual([]);
    expect(run.output).toContain("no dependency violations found");
    expect(run.exitCode).toBe(0);
    expect(run.modules).toBeGreaterThan(0);
    expect(run.dependencies).toBeGreaterThan(0);
  });

  test("sees every @kxm/contract source file and the edges into @kxm/contract from other packages", {
    timeout: REPOSITORY_TIMEOUT_MS,
  }, async () => {
    const result = await layersJson(ROOT);
    const contractFiles = readdirSync(join(ROOT, "packages/contract/src"))
      .filter((name) => name.endsWith(".ts"))
      .map((name) => `packages/contract/src/${name}`);
    const sources = result.modules.map((m) => m.source);
    for (const file of contractFiles) expect(sources).toContain(file);
    const all = edges(result);
    const CLIENT = "packages/contract/src/client.ts";
    for (const file of contractFiles.filter((f) => !f.endsWith("/index.ts") && f !== CLIENT)) {
      expect(all).toContain(`packages/contract/src/index.ts -> ${file}`);
    }
    // The hub client is its own subpath: the root entry does not import it; other packages do, by name.
    expect(all).not.toContain(`packages/contract/src/index.ts -> ${CLIENT}`);
    const into = (target: string) =>
      all.filter((edge) => edge.endsWith(` -> ${target}`) && !edge.startsWith("packages/contract/"));
    expect(into("packages/contract/src/index.ts").length).toBeGreaterThan(0);
    expect(into(CLIENT)).toEqual(expect.arrayContaining([`packages/mcp/src/agent.ts -> ${CLIENT}`]));
    // An npm package that resolves into its dist folder stays visible (the exclude spares node_modules).
    expect(
      all.some((edge) =>
        /^packages\/mcp\/src\/server\.ts -> \S*@modelcontextprotocol\/sdk\/dist\//.test(edge),
      ),
    ).toBe(true);
  });
});
