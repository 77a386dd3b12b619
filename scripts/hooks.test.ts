// `pnpm hooks`, the one command docs/contributing.md gives, run for real in a new Git repository in a temp folder
// that holds this checkout's package.json, hook configuration and commit-msg checker (node_modules linked to this
// checkout's): it must install the commit-msg and pre-push hooks, and the installed commit-msg hook must refuse a
// bad subject and let a good one through when git runs it.
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { pnpmCommand, REPO, suiteFolder } from "./support.js";

const repo = REPO;
const work = suiteFolder("kxm-hooks-");

/** This environment without git's own variables (set when the tests run inside a hook), and no user config. */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_"))),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "ci",
  GIT_AUTHOR_EMAIL: "ci@example.com",
  GIT_COMMITTER_NAME: "ci",
  GIT_COMMITTER_EMAIL: "ci@example.com",
};

const git = (...args: string[]) => spawnSync("git", args, { cwd: work, env, encoding: "utf8" });

/** Runs pnpm (see `pnpmCommand`) and returns its standard output. */
function pnpm(args: readonly string[]): string {
  const [command, rest] = pnpmCommand(args);
  return execFileSync(command, rest, {
    cwd: work,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

const hook = (name: string) => join(work, ".git", "hooks", name);

beforeAll(() => {
  for (const file of ["package.json", ".simple-git-hooks.json", "scripts/commit-msg.mjs"]) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    copyFileSync(join(repo, file), join(work, file));
  }
  symlinkSync(join(repo, "node_modules"), join(work, "node_modules"), "dir");
  expect(git("init", "-q").status).toBe(0);
  expect(existsSync(hook("commit-msg"))).toBe(false);
  pnpm(["hooks"]);
}, 60_000);

describe("pnpm hooks", () => {
  test("installs an executable commit-msg hook and pre-push hook", () => {
    for (const name of ["commit-msg", "pre-push"]) {
      expect(existsSync(hook(name)), name).toBe(true);
      expect(statSync(hook(name)).mode & 0o111, name).not.toBe(0);
    }
    expect(readFileSync(hook("commit-msg"), "utf8")).toContain('node scripts/commit-msg.mjs "$1"');
    const prePush = readFileSync(hook("pre-push"), "utf8");
    for (const script of ["typecheck", "lint", "layers"])
      expect(prePush).toContain(`pnpm run --silent ${script}`);
  });

  test("the installed commit-msg hook refuses a long subject and one without an area", () => {
    writeFileSync(join(work, "a.txt"), "a\n");
    expect(git("add", "a.txt").status).toBe(0);
    const long = git("commit", "-q", "-m", `docs: ${"word ".repeat(20)}`);
    expect(long.status).not.toBe(0);
    expect(long.stderr).toContain("The subject is 105 characters long; keep it to 72");
    const bare = git("commit", "-q", "-m", "Add a file");
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toContain("The subject must read `area: imperative summary`");
    expect(git("rev-parse", "--verify", "-q", "HEAD").status).not.toBe(0);
  });

  test("the installed commit-msg hook lets a good message through", () => {
    const good = git("commit", "-q", "-m", "docs: add a file", "-m", "The body says why.");
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
    expect(git("log", "--format=%s").stdout).toBe("docs: add a file\n");
  });

  test("running it again changes nothing, and leaves a hook it does not manage alone", () => {
    writeFileSync(hook("post-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const before = readFileSync(hook("commit-msg"), "utf8");
    pnpm(["hooks"]);
    expect(readFileSync(hook("commit-msg"), "utf8")).toBe(before);
    expect(existsSync(hook("post-commit"))).toBe(true);
  });
});
