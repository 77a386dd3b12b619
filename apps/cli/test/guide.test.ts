import { readdir, rename } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  expectSameFiles,
  gitRepo,
  kxm,
  put,
  read,
  snapshot,
  TEST_RUNNER_MD,
} from "./support/cli.js";

// The context-and-memory guide, section "Author Git memory", and its Troubleshooting rows, run as printed.

const START = "<!-- kxm:memory:start -->";
const END = "<!-- kxm:memory:end -->";
const BRIEF = [
  "Project memory (1 active fact)",
  "",
  "• [project] [convention] Run the test suite with npm test before every commit (test-runner)",
].join("\n");
const BLOCK = [
  START,
  "## Project memory (read-only projection)",
  "",
  "- **[project]** [convention] Run the test suite with npm test before every commit (`test-runner`)",
  END,
].join("\n");

describe("the guide's Author Git memory workflow, as printed", () => {
  test.concurrent("note, place test-runner.md, brief, sync --dry-run, sync", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();

    // 1. Record a candidate.
    const note = await kxm(
      ["memory", "note", "Use pnpm, not npm, in this repository", "--kind", "convention"],
      {
        cwd: root,
      },
    );
    expect(note.code, note.stderr).toBe(0);
    expect(note.stderr).toBe("");
    const candidates = await readdir(join(root, ".kxm", "memory", "candidates"));
    expect(candidates).toHaveLength(1);
    const candidate = candidates[0] ?? "";
    expect(candidate).toMatch(/^cand_project_[0-9a-f]{12}\.md$/);
    expect(note.stdout).toBe(`Noted candidate .kxm/memory/candidates/${candidate}\n`);
    const candidateText = await read(root, `.kxm/memory/candidates/${candidate}`);
    expect(candidateText).toContain("kind: convention\n");
    expect(candidateText).toContain("summary: Use pnpm, not npm, in this repository\n");
    expect(candidateText).toContain("authority: evidence\n");
    expect(candidateText).toContain("confidence: probable\n");

    // Noting the same thing again finds the same file and writes nothing.
    const again = await kxm(
      ["memory", "note", "Use pnpm, not npm, in this repository", "--kind", "convention", "--json"],
      { cwd: root },
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      id: candidate.replace(/\.md$/, ""),
      file: `.kxm/memory/candidates/${candidate}`,
      created: false,
    });

    // The guide's fact file, placed in .kxm/memory/. The candidate is never loaded.
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);

    // 3. Check what agents will see.
    const brief = await kxm(["memory", "brief"], { cwd: root });
    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stderr).toBe("");
    expect(brief.stdout).toBe(`${BRIEF}\n`);

    // An AGENTS.md without markers, and a CLAUDE.md with a stale block between text of its own.
    const agentsMd = "# Agents\n\nUse the house style — ünïcödé stays.\n\n\n";
    const claudeBefore = "# Claude\n\nText before the block, with trailing blanks   \n\n";
    const claudeAfter = "\n\nText after the block.\n<!-- an ordinary comment -->\nNo final newline";
    await put(root, "AGENTS.md", agentsMd);
    await put(root, "CLAUDE.md", `${claudeBefore}${START}\nstale facts\n${END}${claudeAfter}`);
    const beforeDryRun = await snapshot(root);

    const dryRun = await kxm(["memory", "sync", "--dry-run"], { cwd: root });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stderr).toBe("");
    expect(dryRun.stdout).toBe("AGENTS.md: would append the block\nCLAUDE.md: would update\n");
    expectSameFiles(await snapshot(root), beforeDryRun);

    const sync = await kxm(["memory", "sync"], { cwd: root });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toBe("");
    expect(sync.stdout).toBe("AGENTS.md: appended the block\nCLAUDE.md: updated\n");
    // Appended after the trimmed text and a blank line; nothing else changed.
    expect(await read(root, "AGENTS.md")).toBe(
      `# Agents\n\nUse the house style — ünïcödé stays.\n\n${BLOCK}\n`,
    );
    // Byte-identical outside the markers.
    expect(await read(root, "CLAUDE.md")).toBe(`${claudeBefore}${BLOCK}${claudeAfter}`);
    // Sync never creates an instruction file.
    const afterSync = await snapshot(root);
    expect(afterSync.has("GEMINI.md")).toBe(false);
    expect([...afterSync.keys()].sort()).toEqual([...beforeDryRun.keys()].sort());

    // A second sync has nothing to do.
    const resync = await kxm(["memory", "sync"], { cwd: root });
    expect(resync.code).toBe(0);
    expect(resync.stdout).toBe("AGENTS.md: unchanged\nCLAUDE.md: unchanged\n");
    expectSameFiles(await snapshot(root), afterSync);

    // 2. Promote the candidate as a reviewer would: move it into .kxm/memory/ and give it a stable id.
    await rename(
      join(root, ".kxm", "memory", "candidates", candidate),
      join(root, ".kxm", "memory", "use-pnpm.md"),
    );
    const moved = await read(root, ".kxm/memory/use-pnpm.md");
    await put(root, ".kxm/memory/use-pnpm.md", moved.replace(/^id: .*$/m, "id: use-pnpm"));
    const validate = await kxm(["memory", "validate"], { cwd: root });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toBe("Checked 2 memory files: no problems.\n");
    const promoted = await kxm(["memory", "brief"], { cwd: root });
    expect(promoted.stdout).toBe(
      [
        "Project memory (2 active facts)",
        "",
        "• [project] [convention] Run the test suite with npm test before every commit (test-runner)",
        "• [project] [convention] Use pnpm, not npm, in this repository (use-pnpm)",
        "",
      ].join("\n"),
    );
  });
});

describe("the guide's Troubleshooting rows", () => {
  test.concurrent("memory sync --json names memory_sync_refused and writes no file", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    await put(root, "AGENTS.md", `# Agents\n\n${START}\nold\n${END}\n`);
    await put(root, "GEMINI.md", `# Gemini\n\n${START}\n`);
    const before = await snapshot(root);
    const asJson = await kxm(["memory", "sync", "--json"], { cwd: root });
    expectJsonFailure(
      asJson,
      "memory_sync_refused",
      "GEMINI.md has a start marker with no end marker; wrote no file.",
    );
    expectSameFiles(await snapshot(root), before);
  });

  test.concurrent("memory sync failed: none of AGENTS.md, CLAUDE.md, GEMINI.md exists", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    await put(root, "README.md", "# Project\n");
    const before = await snapshot(root);

    const human = await kxm(["memory", "sync"], { cwd: root });
    expectFailureLine(human, "memory sync", "none of AGENTS.md, CLAUDE.md, GEMINI.md exists");
    expect(human.stderr).toBe("memory sync failed: none of AGENTS.md, CLAUDE.md, GEMINI.md exists\n");

    const asJson = await kxm(["memory", "sync", "--json"], { cwd: root });
    expectJsonFailure(asJson, "memory_sync_no_target", "none of AGENTS.md, CLAUDE.md, GEMINI.md exists");

    // No file was created.
    expectSameFiles(await snapshot(root), before);
  });

  const malformed: Array<[string, string, string]> = [
    [
      "an orphan start marker",
      `# Claude\n\n${START}\nfacts\n`,
      "CLAUDE.md has a start marker with no end marker",
    ],
    [
      "an orphan end marker",
      `# Claude\n\nfacts\n${END}\n`,
      "CLAUDE.md has an end marker with no start marker",
    ],
    [
      "an end before its start",
      `# Claude\n\n${END}\nfacts\n${START}\n`,
      "CLAUDE.md has an end marker before its start marker",
    ],
    [
      "a second block",
      `# Claude\n\n${START}\na\n${END}\n\n${START}\nb\n${END}\n`,
      `CLAUDE.md has 2 ${START} and 2 ${END} markers, not one block`,
    ],
  ];

  test.concurrent.for(malformed)(
    "memory sync failed: <file> has …; wrote no file (%s)",
    async ([, claude, problem]) => {
      const root = await gitRepo();
      await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
      // AGENTS.md comes first and would be appended to; GEMINI.md would be updated: neither may change.
      await put(root, "AGENTS.md", "# Agents\n\nNo markers here.\n");
      await put(root, "CLAUDE.md", claude);
      await put(root, "GEMINI.md", `# Gemini\n\n${START}\nold\n${END}\n`);
      const before = await snapshot(root);

      const human = await kxm(["memory", "sync"], { cwd: root });
      expectFailureLine(human, "memory sync", `${problem}; wrote no file.`);
      expectSameFiles(await snapshot(root), before);
    },
  );
});
