import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { noteCandidate } from "../src/candidates.js";
import { computeMemoryRevision } from "../src/revision.js";
import { put, TEST_RUNNER_MD, tempRoot } from "./support/memory-fixtures.js";

const run = promisify(execFile);

function expected(entries: Array<[string, string]>): string {
  const hash = createHash("sha256");
  for (const [label, bytes] of entries) hash.update(`${label}\0${bytes}\0`);
  return `ctxrev_${hash.digest("hex")}`;
}

async function layout(
  root: string,
  files: Record<string, string>,
  order = Object.keys(files),
): Promise<void> {
  for (const rel of order) await put(root, rel, files[rel] ?? "");
}

const BASE: Record<string, string> = {
  ".kxm/memory/test-runner.md": TEST_RUNNER_MD,
  ".kxm/memory/b.md": "B",
  ".kxm/memory/nested/deep.md": "D",
  ".kxm/skills/promoted/tidy.0123456789ab/SKILL.md": "---\nname: tidy\ndescription: Tidy up\n---\n",
  ".kxm/skills/promoted/tidy.0123456789ab/metadata.json": "{}\n",
};

describe("computeMemoryRevision", () => {
  it("is ctxrev_ and the SHA-256 of nothing for a project without memory or skills", async () => {
    const revision = await computeMemoryRevision(await tempRoot());
    expect(revision).toBe(`ctxrev_${createHash("sha256").digest("hex")}`);
    expect(revision).toMatch(/^ctxrev_[0-9a-f]{64}$/);
  });

  it("hashes <memory|skill>:<path in its folder>\\0<bytes>\\0, memory first, paths sorted by code unit", async () => {
    const root = await tempRoot();
    await layout(root, {
      ...BASE,
      ".kxm/memory/a-b.md": "dash",
      ".kxm/memory/a/b.md": "slash",
      ".kxm/memory/Z.md": "upper",
      ".kxm/skills/promoted/a/x.md": "skill a",
    });
    expect(await computeMemoryRevision(root)).toBe(
      expected([
        ["memory:Z.md", "upper"],
        ["memory:a-b.md", "dash"],
        ["memory:a/b.md", "slash"],
        ["memory:b.md", "B"],
        ["memory:nested/deep.md", "D"],
        ["memory:test-runner.md", TEST_RUNNER_MD],
        ["skill:a/x.md", "skill a"],
        ["skill:tidy.0123456789ab/SKILL.md", BASE[".kxm/skills/promoted/tidy.0123456789ab/SKILL.md"] ?? ""],
        ["skill:tidy.0123456789ab/metadata.json", "{}\n"],
      ]),
    );
  });

  it("is stable across runs and across the order files were created in", async () => {
    const first = await tempRoot();
    const second = await tempRoot();
    await layout(first, BASE);
    await layout(second, BASE, Object.keys(BASE).reverse());
    const revision = await computeMemoryRevision(first);
    expect(await computeMemoryRevision(first)).toBe(revision);
    expect(await computeMemoryRevision(second)).toBe(revision);
  });

  it("matches between a Git checkout and its clone", async () => {
    const origin = await tempRoot();
    await layout(origin, BASE);
    const git = (cwd: string, ...args: string[]) => run("git", args, { cwd });
    await git(origin, "init", "-q");
    await git(origin, "add", ".");
    await git(origin, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "memory");
    const clone = join(await tempRoot(), "clone");
    await run("git", ["clone", "-q", origin, clone]);
    expect(await computeMemoryRevision(clone)).toBe(await computeMemoryRevision(origin));
  });

  describe("changes when", () => {
    const changes: Array<[string, (root: string) => Promise<unknown>]> = [
      ["a memory file's bytes change", (root) => writeFile(join(root, ".kxm/memory/b.md"), "B2")],
      ["a memory file gains a trailing newline", (root) => writeFile(join(root, ".kxm/memory/b.md"), "B\n")],
      ["a memory file is added", (root) => put(root, ".kxm/memory/c.md", "C")],
      ["a nested memory file is added", (root) => put(root, ".kxm/memory/nested/more.md", "M")],
      ["a memory file is removed", (root) => rm(join(root, ".kxm/memory/b.md"))],
      [
        "a memory file is renamed",
        (root) => rename(join(root, ".kxm/memory/b.md"), join(root, ".kxm/memory/b2.md")),
      ],
      [
        "a promoted skill file changes",
        (root) => writeFile(join(root, ".kxm/skills/promoted/tidy.0123456789ab/metadata.json"), "{ }\n"),
      ],
      [
        "a promoted skill is added",
        (root) => put(root, ".kxm/skills/promoted/new.0123456789ab/SKILL.md", "S"),
      ],
      ["a promoted skill is removed", (root) => rm(join(root, ".kxm/skills/promoted"), { recursive: true })],
      [
        "a file moves from memory to skills",
        async (root) => {
          await rm(join(root, ".kxm/memory/b.md"));
          await put(root, ".kxm/skills/promoted/b.md", "B");
        },
      ],
    ];
    it.each(changes)("%s", async (_name, change) => {
      const root = await tempRoot();
      await layout(root, BASE);
      const before = await computeMemoryRevision(root);
      await change(root);
      expect(await computeMemoryRevision(root)).not.toBe(before);
    });
  });

  describe("does not change when", () => {
    const noChanges: Array<[string, (root: string) => Promise<unknown>]> = [
      [
        "a memory candidate is added",
        (root) => put(root, ".kxm/memory/candidates/cand_project_0123456789ab.md", "C"),
      ],
      ["a nested candidates folder changes", (root) => put(root, ".kxm/memory/nested/candidates/x.md", "X")],
      ["a note is recorded", (root) => noteCandidate(root, { summary: "Remember this" })],
      [
        "a skill candidate is proposed",
        (root) => put(root, ".kxm/skills/candidates/x.0123456789ab/SKILL.md", "S"),
      ],
      ["a rejected skill is kept", (root) => put(root, ".kxm/skills/rejected/x/SKILL.md", "S")],
      ["a file outside changes", (root) => put(root, "AGENTS.md", "# Agents\n")],
      ["another .kxm folder changes", (root) => put(root, ".kxm/state/kxm.db", "db")],
      ["an empty folder is added", (root) => mkdir(join(root, ".kxm/memory/empty"))],
    ];
    it.each(noChanges)("%s", async (_name, change) => {
      const root = await tempRoot();
      await layout(root, BASE);
      const before = await computeMemoryRevision(root);
      await change(root);
      expect(await computeMemoryRevision(root)).toBe(before);
    });
  });

  it("does not follow symlinks: a link counts as its target path", async () => {
    const root = await tempRoot();
    await layout(root, BASE);
    await put(root, "docs/outside.md", "first");
    await mkdir(join(root, "docs/dir"), { recursive: true });
    await symlink("../../docs/outside.md", join(root, ".kxm/memory/link.md"));
    await symlink("../../docs/dir", join(root, ".kxm/memory/dirlink"));
    // A link to its own folder would loop if followed.
    await symlink(".", join(root, ".kxm/memory/loop"));
    const revision = await computeMemoryRevision(root);
    expect(revision).toBe(
      expected([
        ["memory:b.md", "B"],
        ["memory:dirlink", "../../docs/dir"],
        ["memory:link.md", "../../docs/outside.md"],
        ["memory:loop", "."],
        ["memory:nested/deep.md", "D"],
        ["memory:test-runner.md", TEST_RUNNER_MD],
        ["skill:tidy.0123456789ab/SKILL.md", BASE[".kxm/skills/promoted/tidy.0123456789ab/SKILL.md"] ?? ""],
        ["skill:tidy.0123456789ab/metadata.json", "{}\n"],
      ]),
    );
    await writeFile(join(root, "docs/outside.md"), "second");
    await put(root, "docs/dir/new.md", "new");
    expect(await computeMemoryRevision(root)).toBe(revision);
    await rm(join(root, ".kxm/memory/link.md"));
    await symlink("../../docs/other.md", join(root, ".kxm/memory/link.md"));
    expect(await computeMemoryRevision(root)).not.toBe(revision);
  });
});
