import { chmod, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git } from "@kxm/test-support";
import { describe, expect, it } from "vitest";
import { checkTrackedClean, gitHeadCommit } from "../src/git.js";
import { expectKxmRejection, tempDir, writeFiles } from "./support/skills-fixtures.js";

const PATHS = [".kxm/memory", ".kxm/skills/promoted"];

/** A repository with committed memory and skill files, plus an unrelated dirty file outside the checked paths. */
async function repo(): Promise<string> {
  const root = await tempDir("kxm-git-");
  git(root, "init", "-q");
  await writeFiles(root, {
    ".kxm/memory/test-runner.md": "fact\n",
    ".kxm/memory/with space.md": "fact\n",
    ".kxm/skills/promoted/a.0123456789ab/SKILL.md": "skill\n",
    "README.md": "readme\n",
  });
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  await writeFile(join(root, "README.md"), "changed outside the checked paths\n");
  return root;
}

describe("checkTrackedClean", () => {
  it("is clean when every file under the paths is committed", async () => {
    const root = await repo();
    expect(await checkTrackedClean(root, PATHS)).toEqual({ status: "clean" });
  });

  it("is clean for paths that hold no file", async () => {
    const root = await repo();
    expect(await checkTrackedClean(root, [".kxm/nothing-here"])).toEqual({ status: "clean" });
  });

  it("reports a modified file", async () => {
    const root = await repo();
    await writeFile(join(root, ".kxm/memory/test-runner.md"), "edited\n");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [{ path: ".kxm/memory/test-runner.md", state: "modified" }],
    });
  });

  it("reports a staged but uncommitted change", async () => {
    const root = await repo();
    await writeFile(join(root, ".kxm/memory/test-runner.md"), "edited\n");
    git(root, "add", ".kxm/memory/test-runner.md");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [{ path: ".kxm/memory/test-runner.md", state: "staged" }],
    });
  });

  it("reports untracked files, each one, including inside new folders", async () => {
    const root = await repo();
    await writeFiles(root, {
      ".kxm/skills/promoted/b.0123456789ab/SKILL.md": "new\n",
      ".kxm/memory/new.md": "n\n",
    });
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/new.md", state: "untracked" },
        { path: ".kxm/skills/promoted/b.0123456789ab/SKILL.md", state: "untracked" },
      ],
    });
  });

  it("reports ignored files, including those in an ignored folder", async () => {
    const root = await repo();
    await writeFile(join(root, ".gitignore"), ".kxm/memory/local.md\n.kxm/memory/private/\n");
    git(root, "add", ".gitignore");
    git(root, "commit", "-q", "-m", "ignore");
    await writeFiles(root, { ".kxm/memory/local.md": "l\n", ".kxm/memory/private/a.md": "p\n" });
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/local.md", state: "ignored" },
        { path: ".kxm/memory/private/a.md", state: "ignored" },
      ],
    });
  });

  it("reports a deleted file, in the work tree or staged", async () => {
    const root = await repo();
    await rm(join(root, ".kxm/memory/test-runner.md"));
    git(root, "rm", "-q", "--cached", ".kxm/skills/promoted/a.0123456789ab/SKILL.md");
    await rm(join(root, ".kxm/skills/promoted/a.0123456789ab/SKILL.md"));
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/test-runner.md", state: "deleted" },
        { path: ".kxm/skills/promoted/a.0123456789ab/SKILL.md", state: "deleted" },
      ],
    });
  });

  it("reports both sides of a staged rename", async () => {
    const root = await repo();
    git(root, "mv", ".kxm/memory/test-runner.md", ".kxm/memory/renamed.md");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/renamed.md", state: "staged" },
        { path: ".kxm/memory/test-runner.md", state: "deleted" },
      ],
    });
  });

  it("handles paths with spaces, quotes and newlines, and checked paths with spaces", async () => {
    const root = await repo();
    await writeFile(join(root, ".kxm/memory/with space.md"), "edited\n");
    await writeFiles(root, { '.kxm/memory/odd "name"\nline.md': "x\n", "my notes/a b.md": "x\n" });
    expect(await checkTrackedClean(root, [...PATHS, "my notes"])).toEqual({
      status: "dirty",
      files: [
        { path: '.kxm/memory/odd "name"\nline.md', state: "untracked" },
        { path: ".kxm/memory/with space.md", state: "modified" },
        { path: "my notes/a b.md", state: "untracked" },
      ],
    });
  });

  it("treats paths literally, not as globs", async () => {
    const root = await repo();
    await writeFiles(root, { ".kxm/memory/new.md": "n\n" });
    expect(await checkTrackedClean(root, [".kxm/mem*"])).toEqual({ status: "clean" });
  });

  it("reports tracked files whose changes git status would hide", async () => {
    const root = await repo();
    git(root, "update-index", "--assume-unchanged", ".kxm/memory/test-runner.md");
    git(root, "update-index", "--skip-worktree", ".kxm/memory/with space.md");
    await writeFile(join(root, ".kxm/memory/test-runner.md"), "edited\n");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/test-runner.md", state: "assume-unchanged" },
        { path: ".kxm/memory/with space.md", state: "skip-worktree" },
      ],
    });
  });

  it("reports project-relative paths when the project is a folder inside the repository", async () => {
    const top = await tempDir("kxm-git-");
    git(top, "init", "-q");
    await writeFiles(top, { "apps/site/.kxm/memory/a.md": "a\n" });
    git(top, "add", "-A");
    git(top, "commit", "-q", "-m", "init");
    const root = join(top, "apps", "site");
    expect(await checkTrackedClean(root, PATHS)).toEqual({ status: "clean" });
    await writeFile(join(root, ".kxm/memory/a.md"), "edited\n");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [{ path: ".kxm/memory/a.md", state: "modified" }],
    });
  });

  it("counts every file as uncommitted in a repository with no commit yet", async () => {
    const root = await tempDir("kxm-git-");
    git(root, "init", "-q");
    await writeFiles(root, { ".kxm/memory/a.md": "a\n", ".kxm/memory/b.md": "b\n" });
    git(root, "add", ".kxm/memory/a.md");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "dirty",
      files: [
        { path: ".kxm/memory/a.md", state: "staged" },
        { path: ".kxm/memory/b.md", state: "untracked" },
      ],
    });
  });

  it("is unavailable outside a repository", async () => {
    const root = await tempDir("kxm-norepo-");
    expect(await checkTrackedClean(root, PATHS)).toEqual({
      status: "unavailable",
      reason: "not_a_repository",
    });
  });

  it("is unavailable when the git binary is missing", async () => {
    const root = await repo();
    expect(await checkTrackedClean(root, PATHS, { gitBinary: join(root, "no-such-git") })).toEqual({
      status: "unavailable",
      reason: "git_missing",
    });
  });

  it("is unavailable when git fails", async () => {
    const root = await repo();
    const fake = join(root, "failing-git");
    await writeFile(fake, "#!/bin/sh\necho boom >&2\nexit 2\n");
    await chmod(fake, 0o755);
    expect(await checkTrackedClean(root, PATHS, { gitBinary: fake })).toEqual({
      status: "unavailable",
      reason: "failed",
    });
  });

  it("kills a git that hangs and reports a timeout within the default 5 seconds", async () => {
    const root = await tempDir("kxm-git-");
    const fake = join(root, "hanging-git");
    await writeFile(fake, "#!/bin/sh\nsleep 30\n");
    await chmod(fake, 0o755);
    const started = Date.now();
    expect(await checkTrackedClean(root, PATHS, { gitBinary: fake })).toEqual({
      status: "unavailable",
      reason: "timeout",
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(4_900);
    expect(elapsed).toBeLessThan(8_000);
  });

  it("honours a shorter timeout", async () => {
    const root = await tempDir("kxm-git-");
    const fake = join(root, "hanging-git");
    await writeFile(fake, "#!/bin/sh\nsleep 30\n");
    await chmod(fake, 0o755);
    const started = Date.now();
    expect(await checkTrackedClean(root, PATHS, { gitBinary: fake, timeoutMs: 200 })).toEqual({
      status: "unavailable",
      reason: "timeout",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("refuses a path outside the project", async () => {
    const root = await repo();
    for (const path of ["../elsewhere", "/etc", ".kxm/../..", ""]) {
      await expectKxmRejection(checkTrackedClean(root, [path]), "invalid_request");
    }
  });

  it("with no paths only checks for a repository", async () => {
    expect(await checkTrackedClean(await repo(), [])).toEqual({ status: "clean" });
    expect(await checkTrackedClean(await tempDir("kxm-norepo-"), [])).toEqual({
      status: "unavailable",
      reason: "not_a_repository",
    });
  });

  it("ignores GIT_DIR set by a surrounding git process", async () => {
    const root = await repo();
    const other = await tempDir("kxm-git-");
    git(other, "init", "-q");
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(other, ".git");
    try {
      expect(await checkTrackedClean(root, PATHS)).toEqual({ status: "clean" });
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });
});

describe("gitHeadCommit", () => {
  it("returns HEAD's commit", async () => {
    const root = await repo();
    expect(await gitHeadCommit(root)).toBe(git(root, "rev-parse", "HEAD").trim());
  });

  it("is undefined with no commit yet or outside a repository", async () => {
    const empty = await tempDir("kxm-git-");
    git(empty, "init", "-q");
    expect(await gitHeadCommit(empty)).toBeUndefined();
    expect(await gitHeadCommit(await tempDir("kxm-norepo-"))).toBeUndefined();
  });

  it("throws git_unavailable when git is missing or hangs", async () => {
    const root = await tempDir("kxm-git-");
    const error = await expectKxmRejection(
      gitHeadCommit(root, { gitBinary: join(root, "nope") }),
      "git_unavailable",
    );
    expect(error.status).toBe(503);
    const fake = join(root, "hanging-git");
    await writeFile(fake, "#!/bin/sh\nsleep 30\n");
    await chmod(fake, 0o755);
    await expectKxmRejection(gitHeadCommit(root, { gitBinary: fake, timeoutMs: 200 }), "git_unavailable");
  });
});
