import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  gitRepo,
  kxm,
  put,
  rootlessDir,
  TEST_RUNNER_MD,
  tempDir,
} from "./support/cli.js";

// Project-root discovery: the nearest folder, walking up from --cwd (or the current folder), that holds .kxm/ or
// .git; project_root_not_found when none does up to `/`.

const BRIEF = [
  "Project memory (1 active fact)",
  "",
  "• [project] [convention] Run the test suite with npm test before every commit (test-runner)",
  "",
].join("\n");
const NOT_FOUND = "no folder holding .kxm/ or .git above the current folder";

describe("project-root discovery", () => {
  test.concurrent("from a nested subfolder, memory is found and written at the root", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const nested = join(root, "src", "deep", "er");
    await mkdir(nested, { recursive: true });
    const [brief, note] = await Promise.all([
      kxm(["memory", "brief"], { cwd: nested }),
      kxm(["memory", "note", "Nested notes land at the root", "--json"], { cwd: nested }),
    ]);
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stdout).toBe(BRIEF);
    expect(note.code, note.stderr).toBe(0);
    expect((await readdir(join(root, ".kxm", "memory", "candidates"))).length).toBe(1);
    expect(await readdir(nested)).toEqual([]);
  });

  test.concurrent("--cwd points at another project, whatever the current folder", async () => {
    const root = await gitRepo();
    const elsewhere = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    await mkdir(join(root, "docs"));
    const [brief, note] = await Promise.all([
      kxm(["memory", "brief", "--cwd", join(root, "docs")], { cwd: elsewhere }),
      kxm(["memory", "note", "Written through --cwd", "--cwd", root], { cwd: elsewhere }),
    ]);
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stdout).toBe(BRIEF);
    expect(note.code, note.stderr).toBe(0);
    expect((await readdir(join(root, ".kxm", "memory", "candidates"))).length).toBe(1);
    expect(await readdir(elsewhere)).toEqual([".git"]);
  });

  test.concurrent("a folder with .kxm/ and no .git is a project root", async () => {
    const root = tempDir("kxm-cli-nogit-");
    await mkdir(join(root, ".kxm"));
    const nested = join(root, "a", "b");
    await mkdir(nested, { recursive: true });
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const brief = await kxm(["memory", "brief"], { cwd: nested });
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stdout).toBe(BRIEF);
  });

  test.concurrent("a folder with neither, anywhere up to /: project_root_not_found", async () => {
    const dir = rootlessDir();
    const nested = join(dir, "nested", "deeper");
    const repo = await gitRepo();
    const [brief, validate, revision, list] = await Promise.all([
      kxm(["memory", "brief"], { cwd: nested }),
      kxm(["memory", "validate", "--json"], { cwd: dir }),
      kxm(["memory", "revision", "--json"], { cwd: nested }),
      // --cwd wins over a current folder that is inside a repository.
      kxm(["skills", "list", "--cwd", nested], { cwd: repo }),
    ]);
    expectFailureLine(brief, "memory brief", NOT_FOUND);
    expectJsonFailure(validate, "project_root_not_found", NOT_FOUND);
    expectJsonFailure(revision, "project_root_not_found", NOT_FOUND);
    expectFailureLine(list, "skills list", NOT_FOUND);
    expect(await readdir(dir)).toEqual(["nested"]);
  });
});

describe("--cwd checks", () => {
  test.concurrent("a --cwd that names no folder is a usage error", async () => {
    const result = await kxm(["memory", "brief", "--cwd", "/no/such/folder"], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("--cwd: no folder at /no/such/folder\nSee: kxm memory brief --help\n");
  });

  test.concurrent("skills propose reads its folder relative to --cwd, not the current folder", async () => {
    const root = await gitRepo();
    await put(root, "skills/s/SKILL.md", "---\nname: s\ndescription: A skill\n---\nBody\n");
    const result = await kxm(["skills", "propose", "skills/s", "--cwd", root, "--json"], {
      cwd: tempDir(),
      env: { KXM_ACTOR: "a" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: "s", status: "proposed", proposedBy: "a" });
  });
});
