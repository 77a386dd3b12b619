import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_CATALOGUE } from "@kxm/contract";
import { factText } from "@kxm/test-support";
import { afterAll, expect } from "vitest";

// The CLI is tested through its built binary, exactly as an operator runs it: `node apps/cli/bin/run.js ...`,
// in real temporary folders holding real Git repositories. Nothing here writes inside the KXM repository.
// The file and memory writers other packages' tests use too live in @kxm/test-support.
export { put, TEST_RUNNER_MD } from "@kxm/test-support";

/** apps/cli, computed from this file's URL so the tests run from any working directory. */
export const CLI_DIR = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = join(CLI_DIR, "bin", "run.js");
export const MANIFEST = join(CLI_DIR, "oclif.manifest.json");

/** Every command the CLI ships, as oclif ids. */
export const COMMAND_IDS = [
  "browser:confirm",
  "browser:connect",
  "browser:create",
  "browser:exec",
  "browser:list",
  "browser:release",
  "browser:resume",
  "browser:scrape",
  "browser:screenshot",
  "browser:status",
  "browser:sweep",
  "browser:takeover",
  "context:episode",
  "context:explain",
  "context:forget",
  "context:get",
  "context:packet",
  "context:packets",
  "context:promote",
  "context:propose",
  "context:recall",
  "context:replay",
  "context:review",
  "context:revocations",
  "context:revoke",
  "context:state",
  "context:tombstones",
  "context:unforget",
  "context:unrevoke",
  "context:wiki-compile",
  "context:wiki-lint",
  "explain",
  "hub:agents:add",
  "hub:agents:list",
  "hub:agents:revoke",
  "hub:agents:rotate",
  "hub:backup",
  "hub:check",
  "hub:copy-to-postgres",
  "hub:operators:add",
  "hub:operators:list",
  "hub:operators:revoke",
  "hub:projects:add",
  "hub:projects:list",
  "hub:projects:remove",
  "hub:projects:update",
  "hub:restore",
  "hub:serve",
  "mcp",
  "memory:accept",
  "memory:brief",
  "memory:candidates",
  "memory:note",
  "memory:reject",
  "memory:revision",
  "memory:sync",
  "memory:validate",
  "memory:verify",
  "run:manifest",
  "run:metrics",
  "run:prompt",
  "run:start",
  "run:status",
  "skills:list",
  "skills:promote",
  "skills:propose",
  "skills:reject",
  "skills:verify",
] as const;

function assertBuilt(): void {
  const needed = [
    MANIFEST,
    join(CLI_DIR, "dist", "base.js"),
    ...COMMAND_IDS.map((id) => `${join(CLI_DIR, "dist", "commands", ...id.split(":"))}.js`),
  ];
  const missing = needed.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(
      `The kxm CLI is not built (missing ${missing.map((path) => path.slice(CLI_DIR.length)).join(", ")}). ` +
        "Build it first: pnpm --filter @kxm/cli... run build (from the repository root).",
    );
  }
}
assertBuilt();

const made: string[] = [];

// A HOME with no .gitconfig, and no global or system git configuration at all, so that identity comes only from
// what a test sets (KXM_ACTOR, or `git config user.email` inside its temporary repository).
const HOME = mkdtempSync(join(tmpdir(), "kxm-cli-home-"));
made.push(HOME);

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The environment every child process gets: no KXM_* or DEBUG variables, no colour, git isolated. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("KXM_") || key.startsWith("GIT_") || key === "DEBUG" || key === "FORCE_COLOR")
      continue;
    if (key === "NODE_OPTIONS" || key.startsWith("VITEST") || key === "XDG_CONFIG_HOME") continue;
    env[key] = value;
  }
  Object.assign(env, {
    HOME,
    NO_COLOR: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
  });
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A stack frame as Node prints it: `    at fn (file:line:col)` or `    at file:line:col`. It needs the location, so a
 * help text whose wrapped line happens to start with "at " (such as "... a page / at a time.") is not one.
 */
export const STACK_FRAME = /^\s+at (?:.+ \()?[^\s()]+:\d+:\d+\)?$/m;

export interface KxmOptions {
  /** Working directory of the process (a temporary folder; never the repository). */
  cwd: string;
  /** Extra environment variables; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Only for KXM_DEBUG=1 runs: every other run is checked for stack frames. */
  allowStack?: boolean;
}

/** Runs the built `kxm` with `args`. Every run, passing or failing, is checked to print no stack trace. */
export function kxm(args: readonly string[], options: KxmOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd, env: baseEnv(options.env), timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(error);
          return;
        }
        const result = { code: error ? Number(error.code) : 0, stdout, stderr };
        try {
          if (!options.allowStack) {
            expect(result.stderr, `kxm ${args.join(" ")} printed a stack trace`).not.toMatch(STACK_FRAME);
            expect(result.stdout, `kxm ${args.join(" ")} printed a stack trace`).not.toMatch(STACK_FRAME);
          }
          resolve(result);
        } catch (failure) {
          reject(failure);
        }
      },
    );
  });
}

/** Runs `git` in `cwd` with the same isolated environment as the CLI. */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env: baseEnv(), timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/** A fresh temporary folder (real path), removed when the test file ends. */
export function tempDir(prefix = "kxm-cli-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A fresh Git repository with one empty commit, made with an explicit identity. */
export async function gitRepo(prefix = "kxm-cli-repo-"): Promise<string> {
  const root = tempDir(prefix);
  await git(root, ["-c", "init.defaultBranch=main", "init", "-q"]);
  await git(root, [
    "-c",
    "user.name=KXM Test",
    "-c",
    "user.email=test@example.com",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "init",
  ]);
  return root;
}

/** Commits everything in `root` with an explicit identity. */
export async function commitAll(root: string, message: string): Promise<void> {
  await git(root, ["add", "-A"]);
  await git(root, [
    "-c",
    "user.name=KXM Test",
    "-c",
    "user.email=test@example.com",
    "commit",
    "-q",
    "-m",
    message,
  ]);
}

/** Reads `rel` under `root` as UTF-8. */
export function read(root: string, rel: string): Promise<string> {
  return readFile(join(root, ...rel.split("/")), "utf8");
}

/** Every file under `dir` (`.git` skipped), relative path with `/` -> bytes. */
export async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (abs: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(abs, { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) await walk(join(abs, entry.name), rel);
      else out.set(rel, await readFile(join(abs, entry.name)));
    }
  };
  await walk(dir, "");
  return out;
}

/** Asserts that two snapshots hold the same paths with byte-identical contents. */
export function expectSameFiles(after: Map<string, Buffer>, before: Map<string, Buffer>): void {
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  for (const [path, bytes] of before) {
    expect(after.get(path)?.equals(bytes), `${path} changed`).toBe(true);
  }
}

/** True when `dir` or any folder above it holds `.kxm/` or `.git` (what project-root discovery looks for). */
function insideProject(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, ".git"))) return true;
    if (existsSync(join(current, ".kxm")) && statSync(join(current, ".kxm")).isDirectory()) return true;
    if (dirname(current) === current) return false;
  }
}

/** A temporary folder with no `.kxm/` or `.git` anywhere up to `/`. */
export function rootlessDir(): string {
  const dir = tempDir("kxm-cli-rootless-");
  if (insideProject(dir)) {
    throw new Error(
      `${tmpdir()} or a folder above it holds .kxm/ or .git, so project-root discovery cannot fail there; ` +
        "run the tests with TMPDIR set to a folder outside any project",
    );
  }
  mkdirSync(join(dir, "nested", "deeper"), { recursive: true });
  return dir;
}

/**
 * An expected failure in human mode: exit 1, nothing on stdout, and exactly one line on stderr,
 * `<topic> <command> failed: <message>`.
 */
export function expectFailureLine(result: RunResult, command: string, message?: string | RegExp): string {
  expect(result.code, `stderr: ${result.stderr}`).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  const lines = result.stderr.slice(0, -1).split("\n");
  expect(lines, "stderr must be exactly one line").toHaveLength(1);
  const line = lines[0] ?? "";
  expect(line.startsWith(`${command} failed: `), line).toBe(true);
  const text = line.slice(`${command} failed: `.length);
  if (typeof message === "string") expect(text).toBe(message);
  else if (message) expect(text).toMatch(message);
  return text;
}

/** An expected failure with --json: exit 1, `{"error":{"code","message"}}` on stdout, nothing on stderr. */
export function expectJsonFailure(result: RunResult, code: string, message?: string | RegExp): string {
  expect(result.code, `stderr: ${result.stderr}`).toBe(1);
  expect(result.stderr).toBe("");
  const parsed = JSON.parse(result.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(["error"]);
  expect(Object.keys(parsed.error).sort()).toEqual(["code", "message"]);
  expect(parsed.error.code).toBe(code);
  expect(Object.hasOwn(ERROR_CATALOGUE, parsed.error.code), `${code} is not a catalogue code`).toBe(true);
  expect(typeof parsed.error.message).toBe("string");
  if (typeof message === "string") expect(parsed.error.message).toBe(message);
  else if (message) expect(parsed.error.message).toMatch(message);
  return parsed.error.message;
}

/** A usage error in human mode: exit 2, the problem on one line, then `See: kxm <command> --help`. */
export function expectUsageError(result: RunResult, command: string, problem?: string | RegExp): void {
  expect(result.code, `stderr: ${result.stderr}`).toBe(2);
  expect(result.stdout).toBe("");
  const lines = result.stderr.replace(/\n$/, "").split("\n");
  expect(lines, `stderr: ${result.stderr}`).toHaveLength(2);
  expect(lines[1]).toBe(`See: kxm ${command} --help`);
  if (typeof problem === "string") expect(lines[0]).toBe(problem);
  else if (problem) expect(lines[0]).toMatch(problem);
}

type JsonType = "string" | "number" | "boolean" | "array" | "object";

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value;
}

/** Asserts that `value` is an object with exactly the keys of `shape`, each of the given JSON type. */
export function expectShape(value: unknown, shape: Record<string, JsonType>, where = "value"): void {
  expect(typeOf(value), where).toBe("object");
  const record = value as Record<string, unknown>;
  expect(Object.keys(record).sort(), `${where} keys`).toEqual(Object.keys(shape).sort());
  for (const [key, type] of Object.entries(shape)) expect(typeOf(record[key]), `${where}.${key}`).toBe(type);
}

/** Parses a command's JSON output (the whole of stdout). */
export function json<T = Record<string, unknown>>(result: RunResult): T {
  expect(result.stdout.trim().startsWith("{"), `stdout is not JSON: ${result.stdout}`).toBe(true);
  return JSON.parse(result.stdout) as T;
}

/** A valid memory file for `id`, with front-matter lines replaced or added by `overrides`. */
export function memoryFile(id: string, overrides: Record<string, string | undefined> = {}): string {
  return factText({
    id,
    summary: `Fact ${id}`,
    provenance: "\n  sourceType: git\n  sourceRef: docs/testing.md",
    ...overrides,
  });
}

/** An Agent Skills SKILL.md. */
export function skillMarkdown(
  name: string,
  description: string,
  body = "# Steps\n\n1. Do the thing.\n",
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}
