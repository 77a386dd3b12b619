// The Claude Code SessionStart hook of docs/examples/claude-code/settings.json, run the way Claude Code runs it: its
// command through a shell, in a real project, with CLAUDE_PROJECT_DIR set and `kxm` on PATH (a shim that starts
// the built CLI, standing in for an installed one).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";

const cli = fileURLToPath(new URL("../../apps/cli/bin/run.js", import.meta.url));
const settings = JSON.parse(readFileSync(new URL("claude-code/settings.json", import.meta.url), "utf8"));
const hook = settings.hooks.SessionStart[0].hooks[0];
const work = mkdtempSync(join(tmpdir(), "kxm-hook-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(fact: string | undefined): string {
  const root = mkdtempSync(join(work, "project-"));
  execFileSync("git", ["init", "-q", root]);
  mkdirSync(join(root, ".kxm", "memory"), { recursive: true });
  if (fact !== undefined) writeFileSync(join(root, ".kxm", "memory", "test-runner.md"), fact);
  return root;
}

function runHook(root: string): { status: number; stdout: string } {
  const bin = join(work, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(join(bin, "kxm"), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, CLAUDE_PROJECT_DIR: root, KXM_DEBUG: "" };
  try {
    // Started from another folder: the hook must find the project through CLAUDE_PROJECT_DIR.
    const stdout = execFileSync("/bin/sh", ["-c", hook.command], { cwd: work, env, encoding: "utf8" });
    return { status: 0, stdout };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { status: failed.status, stdout: failed.stdout };
  }
}

const FACT = [
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
].join("\n");

test("the hook is a SessionStart command hook with a timeout", () => {
  expect(hook).toMatchObject({ type: "command", timeout: 10 });
  expect(hook.command).toContain("kxm memory brief");
});

test("the hook prints the project's brief, which Claude Code adds to the session", () => {
  expect(runHook(project(FACT))).toEqual({
    status: 0,
    stdout:
      "Project memory (1 active fact)\n\n• [project] [convention] Run the test suite with npm test before every commit (test-runner)\n",
  });
});

test("with no facts it says so", () => {
  expect(runHook(project(undefined))).toEqual({ status: 0, stdout: "No active project memory facts.\n" });
});

test("a malformed fact fails the hook with exit 1 and prints nothing to the session", () => {
  const result = runHook(project(FACT.replace("scope: project", "scope: galaxy")));
  expect(result).toEqual({ status: 1, stdout: "" });
});
