import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import { at, open, T0, tempDir } from "./support/temp-store.js";

// The hub's database holds agent key hashes: it must never be readable by other users, nor committed by a
// `git add -A` in the checkout it lives in. Checked with a real git repository and the real files SQLite writes.

const mode = (path: string) => statSync(path).mode & 0o777;

function repository(): string {
  const repo = tempDir();
  git(repo, "init", "-q");
  writeFileSync(join(repo, "README.md"), "# demo\n");
  return repo;
}

async function writeSomething(file: string): Promise<void> {
  const store = await open(file);
  await store.createProject({ id: "demo" }, at(T0));
  await store.createAgentKey("demo", "agent-1", at(T0));
}

describe("the database under .kxm/state", () => {
  test("is created 0700 with 0600 files and an ignore file, so git add -A stages nothing from it", async () => {
    const repo = repository();
    const file = join(repo, ".kxm", "state", "kxm.db");
    await writeSomething(file);
    const folder = join(repo, ".kxm", "state");
    expect(mode(folder)).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      expect(existsSync(path), path).toBe(true);
      expect(mode(path).toString(8), path).toBe("600");
    }
    expect(readFileSync(join(folder, ".gitignore"), "utf8")).toMatch(/^\*$/m);
    git(repo, "add", "-A");
    expect(git(repo, "diff", "--cached", "--name-only").split("\n").filter(Boolean)).toEqual(["README.md"]);
    expect(git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all")).toContain(
      "!! .kxm/state/",
    );
  });

  test("an existing .kxm/state left 0755 with a 0644 database by an earlier version is made private", async () => {
    const repo = repository();
    const folder = join(repo, ".kxm", "state");
    const file = join(folder, "kxm.db");
    await writeSomething(file);
    rmSync(join(folder, ".gitignore"));
    chmodSync(folder, 0o755);
    chmodSync(file, 0o644);
    const reopened = await open(file);
    await reopened.listProjects();
    expect(mode(folder)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    git(repo, "add", "-A");
    expect(git(repo, "diff", "--cached", "--name-only").split("\n").filter(Boolean)).toEqual(["README.md"]);
  });

  test("a database put in a folder the store did not make elsewhere gets no ignore file there", async () => {
    const repo = repository();
    mkdirSync(join(repo, "data"));
    chmodSync(join(repo, "data"), 0o755);
    writeFileSync(join(repo, "data", "notes.txt"), "mine\n");
    const file = join(repo, "data", "kxm.db");
    await writeSomething(file);
    expect(existsSync(join(repo, "data", ".gitignore"))).toBe(false);
    expect(mode(join(repo, "data"))).toBe(0o755);
    expect(mode(file)).toBe(0o600);
    git(repo, "add", "-A");
    expect(git(repo, "diff", "--cached", "--name-only")).toContain("data/notes.txt");
  });
});
