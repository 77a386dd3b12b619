import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { REPO, suiteFolder } from "./support.js";

// The README's first command from a clean copy of this checkout, then a fresh shell whose PATH holds only Node's
// folder and what the set-up gave (npm's global bin, here a temporary prefix): `kxm` must run by name there, as
// the SessionStart hook, `sh -c` and a harness spawning the MCP server run it. The copy installs from the local
// pnpm store, offline, so the cost is one workspace install and one build of the CLI and the examples.

const repo = REPO;
const work = suiteFolder("kxm-setup-", 120_000);
const clone = join(work, "kxm");
const prefix = join(work, "npm-global");
const globalBin = process.platform === "win32" ? prefix : join(prefix, "bin");

/** The tracked and untracked (not ignored) files of this checkout, as a clone of it would hold them. */
function copyCheckout(): void {
  const files = execFileSync(
    "git",
    ["-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  )
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(repo, file)));
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(repo, file), join(clone, file), { verbatimSymlinks: true });
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: clone, stdio: "pipe" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.email=ci@example.com", "-c", "user.name=ci", "commit", "-q", "-m", "clone");
}

/** The environment of a new shell after the README's set-up: Node's folder and npm's global bin, nothing else. */
function freshShell(): NodeJS.ProcessEnv {
  const home = join(work, "home");
  mkdirSync(home, { recursive: true });
  return {
    HOME: home,
    PATH: [dirname(process.execPath), globalBin].join(delimiter),
    npm_config_prefix: prefix,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
}

let demo: { status: number | null; stdout: string; stderr: string };

beforeAll(() => {
  copyCheckout();
  // The set-up may use whatever the machine has (pnpm, the store, a compiler for better-sqlite3), but its npm
  // global folder is the temporary prefix, and the install does not go to the network.
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_prefix: prefix, npm_config_offline: "true" };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key.startsWith("KXM_")) delete env[key];
  delete env.NODE_OPTIONS;
  const run = spawnSync("npm", ["run", "demo"], { cwd: clone, env, encoding: "utf8", timeout: 500_000 });
  demo = { status: run.status, stdout: run.stdout, stderr: run.stderr };
}, 520_000);

describe("npm run demo from a clean clone", () => {
  test("runs the demo and says where it installed kxm, and how to undo it", () => {
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain(
      `Installed kxm from this checkout into npm's global folder: ${join(globalBin, "kxm")} ` +
        "(undo: npm uninstall -g @kxm/cli).",
    );
    // The demo's own last line is still the README's.
    expect(demo.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^\{"state":\["Releases are cut from the main branch"\]/,
    );
  });

  test("a new shell runs kxm by name: every topic, and memory brief in a Git repository", () => {
    const env = freshShell();
    const help = spawnSync("sh", ["-c", "kxm --help"], { cwd: work, env, encoding: "utf8" });
    expect(help.status, help.stderr).toBe(0);
    for (const topic of ["context", "hub", "memory", "run", "skills", "mcp"]) {
      expect(help.stdout, topic).toMatch(new RegExp(`^ {2}${topic} `, "m"));
    }
    const project = join(work, "project");
    mkdirSync(join(project, ".kxm", "memory"), { recursive: true });
    writeFileSync(
      join(project, ".kxm", "memory", "test-runner.md"),
      [
        "---",
        "schema: kxm.memory.v1",
        "id: test-runner",
        "scope: project",
        "kind: convention",
        "summary: Run the test suite with npm test before every commit",
        "provenance:",
        "  sourceType: git",
        "authority: instruction",
        "confidence: verified",
        "lifecycle: active",
        "---",
        "",
      ].join("\n"),
    );
    execFileSync("git", ["init", "-q"], { cwd: project, env });
    // The SessionStart hook's command line, as Claude Code runs it: through a shell, by name.
    const brief = spawnSync("sh", ["-c", "kxm memory brief"], { cwd: project, env, encoding: "utf8" });
    expect(brief.status, brief.stderr).toBe(0);
    const expected =
      "Project memory (1 active fact)\n\n• [project] [convention] Run the test suite with npm test before every " +
      "commit (test-runner)\n";
    expect(brief.stdout).toBe(expected);
    // The guide's hook command (docs/examples/claude-code/settings.json), from another folder.
    const settings = JSON.parse(
      readFileSync(join(repo, "docs", "examples", "claude-code", "settings.json"), "utf8"),
    );
    const hook = settings.hooks.SessionStart[0].hooks[0].command as string;
    const fromHook = spawnSync("sh", ["-c", hook], {
      cwd: work,
      env: { ...env, CLAUDE_PROJECT_DIR: project },
      encoding: "utf8",
    });
    expect(fromHook.status, fromHook.stderr).toBe(0);
    expect(fromHook.stdout).toBe(expected);
  });

  test("a harness spawns kxm mcp by name, without a shell", async () => {
    const env = freshShell();
    const child = spawn("kxm", ["mcp", "--help"], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((done, fail) => {
      child.once("error", fail);
      child.once("close", done);
    });
    expect(code).toBe(0);
    expect(stdout).toContain("$ kxm mcp");
  });

  test("npm uninstall -g @kxm/cli undoes it", () => {
    const env = freshShell();
    const removed = spawnSync("npm", ["uninstall", "--global", "@kxm/cli"], {
      cwd: work,
      env,
      encoding: "utf8",
    });
    expect(removed.status, removed.stderr).toBe(0);
    const gone = spawnSync("sh", ["-c", "command -v kxm"], { cwd: work, env, encoding: "utf8" });
    expect(gone.status).not.toBe(0);
    expect(existsSync(clone)).toBe(true);
  });
});
