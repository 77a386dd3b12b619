import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { git } from "@kxm/test-support";
import { describe, expect, it } from "vitest";
import { readCommittedMemory } from "../src/committed.js";
import { admitFact } from "../src/fact-item.js";
import { readCommittedFiles } from "../src/git.js";
import { deliverableFacts, validateMemory } from "../src/load.js";
import { computeMemoryRevision } from "../src/revision.js";
import { syncInstructionFiles } from "../src/sync.js";
import { expectKxmRejection, put, putFact, snapshot, tempRoot } from "./support/memory-fixtures.js";

async function repo(): Promise<string> {
  const root = await tempRoot();
  git(root, "init", "-q");
  await putFact(root, "release.md", { id: "release", summary: "Run the release suite" });
  await put(root, ".kxm/skills/promoted/a.0123456789ab/SKILL.md", "skill\n");
  await put(root, "README.md", "readme\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  return root;
}

const LONG = `Release ${"x".repeat(5_000)}`;
const LONG_RULE = ".kxm/memory/long.md: summary: must be at most 4000 characters";

describe("one rule for over-limit facts: validate, brief, sync and the hub's reader agree", () => {
  it("validate names it, brief and sync refuse with the same message, the committed reader names it", async () => {
    const root = await repo();
    await putFact(root, "long.md", { id: "long", summary: LONG });
    await put(root, "CLAUDE.md", "# Claude\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "long");

    const { problems } = await validateMemory(root);
    expect(problems).toEqual([
      { file: ".kxm/memory/long.md", field: "summary", rule: "must be at most 4000 characters" },
    ]);

    const brief = await expectKxmRejection(deliverableFacts(root), "memory_invalid");
    expect(brief.message).toBe(LONG_RULE);

    const before = await snapshot(root);
    const sync = await expectKxmRejection(syncInstructionFiles(root), "memory_invalid");
    expect(sync.message).toBe(LONG_RULE);
    expect(await snapshot(root)).toEqual(before);
    expect(await readFile(join(root, "CLAUDE.md"), "utf8")).toBe("# Claude\n");

    const committed = await readCommittedMemory(root, "demo");
    expect(committed.items.map((item) => item.id)).toEqual(["mem_release"]);
    expect(committed.problems).toEqual(problems);
  });

  it("every limit of the contract is named by the file's own field", async () => {
    const root = await tempRoot();
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ summary: LONG }, "summary", "must be at most 4000 characters"],
      [{ id: "a".repeat(125) }, "id", "must be at most 124 characters"],
      [
        { provenance: `\n  sourceType: git\n  sourceRef: ${"r".repeat(513)}` },
        "provenance.sourceRef",
        "must be at most 512 characters",
      ],
      [
        { evidenceRefs: `[${Array.from({ length: 65 }, (_, i) => `"e${i}"`).join(", ")}]` },
        "evidenceRefs",
        "must hold at most 64 references",
      ],
      [{ evidenceRefs: `["${"e".repeat(513)}"]` }, "evidenceRefs", "each must be at most 512 characters"],
      [{ evidenceRefs: `["pr:1", "pr:1"]` }, "evidenceRefs", "must not repeat a reference"],
    ];
    for (const [index, [overrides, field, rule]] of cases.entries()) {
      await rm(join(root, ".kxm"), { recursive: true, force: true });
      await putFact(root, `case-${index}.md`, overrides);
      const { problems } = await validateMemory(root);
      expect(problems).toEqual([{ file: `.kxm/memory/case-${index}.md`, field, rule }]);
    }
  });

  it("an item the limits allow is admitted unchanged", async () => {
    const root = await tempRoot();
    await putFact(root, "ok.md", { id: "ok", summary: "x".repeat(4_000) });
    const [fact] = await deliverableFacts(root);
    const admitted = admitFact(fact!, "demo");
    expect("item" in admitted && admitted.item.summary.length).toBe(4_000);
  });
});

describe("readCommittedFiles and readCommittedMemory read HEAD, never the work tree", () => {
  it("reads the committed bytes of a modified file, and no untracked or staged file", async () => {
    const root = await repo();
    await putFact(root, "release.md", { id: "release", summary: "Edited in the work tree" });
    await putFact(root, "staged.md", { id: "staged" });
    git(root, "add", ".kxm/memory/staged.md");
    await putFact(root, "untracked.md", { id: "untracked" });
    await writeFile(join(root, ".kxm/memory-checks.json"), "{}\n");
    const read = await readCommittedFiles(root, [".kxm/memory", ".kxm/skills/promoted"]);
    expect(read.status).toBe("ok");
    if (read.status !== "ok") return;
    expect(read.commit).toBe(git(root, "rev-parse", "HEAD"));
    expect(read.files.map((file) => file.path)).toEqual([
      ".kxm/memory/release.md",
      ".kxm/skills/promoted/a.0123456789ab/SKILL.md",
    ]);
    expect(read.files[0]!.bytes.toString("utf8")).toContain("Run the release suite");

    const memory = await readCommittedMemory(root, "demo");
    expect(memory.items.map((item) => [item.id, item.summary])).toEqual([
      ["mem_release", "Run the release suite"],
    ]);
    expect(memory.withheld).toEqual([
      { path: ".kxm/memory-checks.json", state: "untracked" },
      { path: ".kxm/memory/release.md", state: "modified" },
      { path: ".kxm/memory/staged.md", state: "staged" },
      { path: ".kxm/memory/untracked.md", state: "untracked" },
    ]);
  });

  it("the committed revision equals the work tree's revision when the checkout is clean", async () => {
    const root = await repo();
    const memory = await readCommittedMemory(root, "demo");
    expect(memory.revision).toBe(await computeMemoryRevision(root));
    await writeFile(join(root, ".kxm/memory/release.md"), "changed\n");
    const after = await readCommittedMemory(root, "demo");
    expect(after.revision).toBe(memory.revision);
    expect(await computeMemoryRevision(root)).not.toBe(memory.revision);
  });

  it("reads an earlier commit by its full id; a commit not there, or not a full id, is commit_missing", async () => {
    const root = await repo();
    const first = git(root, "rev-parse", "HEAD");
    const before = await readCommittedMemory(root, "demo");
    await putFact(root, "release.md", { id: "release", summary: "Run the long release suite" });
    git(root, "commit", "-q", "-am", "later");
    await putFact(root, "release.md", { id: "release", summary: "Uncommitted" });
    const then = await readCommittedMemory(root, "demo", { commit: first });
    expect(then).toEqual({ ...before, withheld: [] });
    expect(then.items.map((item) => item.summary)).toEqual(["Run the release suite"]);
    for (const commit of ["0".repeat(40), first.slice(0, 12), "--all", "HEAD"]) {
      expect((await readCommittedMemory(root, "demo", { commit })).unavailable).toBe("commit_missing");
    }
  });

  it("a project inside a repository reads its own folder's files", async () => {
    const top = await tempRoot();
    git(top, "init", "-q");
    const root = join(top, "packages", "app");
    await putFact(root, "inner.md", { id: "inner" });
    await putFact(top, "outer.md", { id: "outer" });
    git(top, "add", "-A");
    git(top, "commit", "-q", "-m", "init");
    const memory = await readCommittedMemory(root, "demo");
    expect(memory.items.map((item) => item.id)).toEqual(["mem_inner"]);
    expect(memory.withheld).toEqual([]);
  });

  it("a committed symlink in the memory folder is a problem, not followed", async () => {
    const root = await repo();
    execFileSync("ln", ["-s", "../../README.md", join(root, ".kxm/memory/link.md")]);
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "link");
    const memory = await readCommittedMemory(root, "demo");
    expect(memory.problems).toEqual([
      {
        file: ".kxm/memory/link.md",
        field: "(file)",
        rule: "is a symlink; memory files must be regular files",
      },
    ]);
    expect(memory.items.map((item) => item.id)).toEqual(["mem_release"]);
  });

  it("a folder outside any repository is unavailable only when it holds memory", async () => {
    const root = await tempRoot();
    expect((await readCommittedMemory(root, "demo")).unavailable).toBeUndefined();
    await putFact(root, "release.md", { id: "release" });
    const memory = await readCommittedMemory(root, "demo");
    expect(memory.unavailable).toBe("not_a_repository");
    expect(memory.items).toEqual([]);
  });
});
