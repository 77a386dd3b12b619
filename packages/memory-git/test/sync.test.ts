import { lstat, mkdir, readFile, readlink, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  INSTRUCTION_FILES,
  MEMORY_END,
  MEMORY_START,
  planSync,
  renderMemoryBlock,
  syncInstructionFiles,
} from "../src/sync.js";
import {
  expectKxmError,
  expectKxmRejection,
  fact,
  put,
  putFact,
  snapshot,
  tempRoot,
} from "./support/memory-fixtures.js";

const EMPTY_BLOCK = [
  "<!-- kxm:memory:start -->",
  "## Project memory (read-only projection)",
  "",
  "*No active project memory.*",
  "<!-- kxm:memory:end -->",
].join("\n");

const BLOCK = renderMemoryBlock([fact("use-pnpm", { summary: "Use pnpm, not npm" })]);

describe("renderMemoryBlock", () => {
  it("renders the empty block exactly", () => {
    expect(renderMemoryBlock([])).toBe(EMPTY_BLOCK);
    expect(renderMemoryBlock([fact("old", { lifecycle: "deprecated" })])).toBe(EMPTY_BLOCK);
    expect(INSTRUCTION_FILES).toEqual(["AGENTS.md", "CLAUDE.md", "GEMINI.md"]);
    expect([MEMORY_START, MEMORY_END]).toEqual(["<!-- kxm:memory:start -->", "<!-- kxm:memory:end -->"]);
  });

  it("renders one line per active fact, in the given order", () => {
    expect(
      renderMemoryBlock([
        fact("test-runner", { summary: "Run npm test before every commit" }),
        fact("gone", { lifecycle: "superseded" }),
        fact("shared", { scope: "operator", kind: "default", summary: "Prefer UTC" }),
      ]),
    ).toBe(
      [
        "<!-- kxm:memory:start -->",
        "## Project memory (read-only projection)",
        "",
        "- **[project]** [convention] Run npm test before every commit (`test-runner`)",
        "- **[operator]** [default] Prefer UTC (`shared`)",
        "<!-- kxm:memory:end -->",
      ].join("\n"),
    );
  });

  it("never lets a summary or kind plant a marker, and keeps each fact on one line", () => {
    const block = renderMemoryBlock([
      fact("sneaky", { kind: "<!-- kxm:memory:start -->", summary: `Text ${MEMORY_END}\nsecond line` }),
    ]);
    expect(block.split(MEMORY_START)).toHaveLength(2);
    expect(block.split(MEMORY_END)).toHaveLength(2);
    expect(block.split("\n")[3]).toBe(
      "- **[project]** [&lt;!-- kxm:memory:start -->] Text &lt;!-- kxm:memory:end --> second line (`sneaky`)",
    );
  });
});

describe("planSync", () => {
  it("appends after the trimmed text and a blank line", () => {
    expect(planSync("AGENTS.md", "# Agents\n\nBe kind.\n\n\n  \t\n", BLOCK)).toEqual({
      text: `# Agents\n\nBe kind.\n\n${BLOCK}\n`,
      action: "appended",
    });
    expect(planSync("AGENTS.md", "no newline", BLOCK).text).toBe(`no newline\n\n${BLOCK}\n`);
  });

  it("turns an empty or blank file into the block and a newline", () => {
    expect(planSync("AGENTS.md", "", BLOCK)).toEqual({ text: `${BLOCK}\n`, action: "appended" });
    expect(planSync("AGENTS.md", " \n\n\t", BLOCK)).toEqual({ text: `${BLOCK}\n`, action: "appended" });
  });

  it("keeps a byte order mark and CRLF line endings when appending", () => {
    const crlfBlock = BLOCK.replace(/\n/g, "\r\n");
    expect(planSync("AGENTS.md", "\uFEFF# Agents\r\nText\r\n", BLOCK).text).toBe(
      `\uFEFF# Agents\r\nText\r\n\r\n${crlfBlock}\r\n`,
    );
    expect(planSync("AGENTS.md", "\uFEFF", BLOCK).text).toBe(`\uFEFF${BLOCK}\n`);
  });

  it("replaces the block and nothing else", () => {
    const before =
      "# Agents\n\nIntro  \n<!-- kxm:memory:start -->\nold\nstuff\n<!-- kxm:memory:end -->  tail\n\nOutro";
    expect(planSync("AGENTS.md", before, BLOCK)).toEqual({
      text: `# Agents\n\nIntro  \n${BLOCK}  tail\n\nOutro`,
      action: "updated",
    });
  });

  it("writes the block with CRLF in a CRLF file, keeping every byte outside", () => {
    const before = `# Agents\r\n\r\n${MEMORY_START}\nold\n${MEMORY_END}\r\nafter\n`;
    expect(planSync("CLAUDE.md", before, BLOCK).text).toBe(
      `# Agents\r\n\r\n${BLOCK.replace(/\n/g, "\r\n")}\r\nafter\n`,
    );
  });

  it("answers unchanged when the block is already current, with LF and with CRLF", () => {
    const lf = `Intro\n\n${BLOCK}\n`;
    expect(planSync("AGENTS.md", lf, BLOCK)).toEqual({ text: lf, action: "unchanged" });
    const crlf = `Intro\r\n\r\n${BLOCK.replace(/\n/g, "\r\n")}\r\n`;
    expect(planSync("AGENTS.md", crlf, BLOCK)).toEqual({ text: crlf, action: "unchanged" });
    const appended = planSync("AGENTS.md", "Intro\r\n", BLOCK).text;
    expect(planSync("AGENTS.md", appended, BLOCK).action).toBe("unchanged");
  });

  it.each([
    [
      "a start with no end",
      `a\n${MEMORY_START}\nb\n`,
      "AGENTS.md has a start marker with no end marker; wrote no file.",
    ],
    [
      "an end with no start",
      `a\n${MEMORY_END}\nb\n`,
      "AGENTS.md has an end marker with no start marker; wrote no file.",
    ],
    [
      "an end before its start",
      `${MEMORY_END}\nmine\n${MEMORY_START}\n`,
      "AGENTS.md has an end marker before its start marker; wrote no file.",
    ],
    [
      "a second block",
      `${MEMORY_START}\n${MEMORY_END}\n${MEMORY_START}\n${MEMORY_END}\n`,
      "AGENTS.md has 2 <!-- kxm:memory:start --> and 2 <!-- kxm:memory:end --> markers, not one block; wrote no file.",
    ],
    [
      "two starts and one end (counts win over pairing)",
      `${MEMORY_START}\n${MEMORY_START}\n${MEMORY_END}\n`,
      "AGENTS.md has 2 <!-- kxm:memory:start --> and 1 <!-- kxm:memory:end --> markers, not one block; wrote no file.",
    ],
    [
      "two ends and no start",
      `${MEMORY_END}${MEMORY_END}`,
      "AGENTS.md has 0 <!-- kxm:memory:start --> and 2 <!-- kxm:memory:end --> markers, not one block; wrote no file.",
    ],
    [
      "a marker inside a code fence (any occurrence counts)",
      `${MEMORY_START}\n${MEMORY_END}\n\n\`\`\`md\n${MEMORY_START}\n\`\`\`\n`,
      "AGENTS.md has 2 <!-- kxm:memory:start --> and 1 <!-- kxm:memory:end --> markers, not one block; wrote no file.",
    ],
  ])("refuses %s", (_name, text, message) => {
    const error = expectKxmError(() => planSync("AGENTS.md", text, BLOCK), "memory_sync_refused");
    expect(error.status).toBe(409);
    expect(error.message).toBe(message);
  });

  it("counts only whole marker strings", () => {
    const text = "<!-- kxm:memory:start--> and <!-- kxm:memory -->\n";
    expect(planSync("AGENTS.md", text, BLOCK).action).toBe("appended");
  });
});

describe("syncInstructionFiles", () => {
  async function project(files: Record<string, string>): Promise<string> {
    const root = await tempRoot();
    await putFact(root, "use-pnpm.md", { id: "use-pnpm", summary: "Use pnpm, not npm" });
    await putFact(root, "old.md", { id: "old", lifecycle: "deprecated" });
    for (const [name, text] of Object.entries(files)) await put(root, name, text);
    return root;
  }

  const block = renderMemoryBlock([fact("use-pnpm", { summary: "Use pnpm, not npm" })]);

  it("leaves out the facts a hub withholds and counts them per reason, in reason order", async () => {
    const root = await project({ "AGENTS.md": "# Agents\n" });
    await putFact(root, "keep.md", { id: "keep", summary: "Keep the changelog short" });
    await putFact(root, "tag.md", { id: "tag", summary: "Tag from main" });
    const withheld = new Map([
      ["mem_use-pnpm", "forgotten"],
      ["mem_tag", "revoked"],
      // A withheld fact that is not active here, and a skill: nothing to leave out, nothing counted.
      ["mem_old", "revoked"],
      ["skill_notes", "revoked"],
    ] as const);
    const result = await syncInstructionFiles(root, { withheld });
    const kept = renderMemoryBlock([fact("keep", { summary: "Keep the changelog short" })]);
    expect(result).toEqual({
      block: kept,
      files: [{ file: "AGENTS.md", action: "appended" }],
      withheld: { revoked: 1, forgotten: 1 },
    });
    expect(Object.keys(result.withheld)).toEqual(["revoked", "forgotten"]);
    expect(await readFile(join(root, "AGENTS.md"), "utf8")).toBe(`# Agents\n\n${kept}\n`);
  });

  it("updates, appends and reports only the files that exist, in order", async () => {
    const root = await project({
      "GEMINI.md": `# Gemini\n\n${MEMORY_START}\nstale\n${MEMORY_END}\n`,
      "AGENTS.md": "# Agents\n",
    });
    const result = await syncInstructionFiles(root);
    expect(result).toEqual({
      block,
      files: [
        { file: "AGENTS.md", action: "appended" },
        { file: "GEMINI.md", action: "updated" },
      ],
      withheld: {},
    });
    expect(await readFile(join(root, "AGENTS.md"), "utf8")).toBe(`# Agents\n\n${block}\n`);
    expect(await readFile(join(root, "GEMINI.md"), "utf8")).toBe(`# Gemini\n\n${block}\n`);
    await expect(lstat(join(root, "CLAUDE.md"))).rejects.toThrow();

    const before = await snapshot(root);
    const inode = (await lstat(join(root, "AGENTS.md"))).ino;
    expect((await syncInstructionFiles(root)).files.map((file) => file.action)).toEqual([
      "unchanged",
      "unchanged",
    ]);
    expect(await snapshot(root)).toEqual(before);
    // An atomic write renames a new file into place; the same inode shows nothing was written.
    expect((await lstat(join(root, "AGENTS.md"))).ino).toBe(inode);
  });

  it("refuses when none of the three files exists, creating nothing", async () => {
    const root = await project({ "README.md": "# Readme\n", "docs/AGENTS.md": "# nested\n" });
    const before = await snapshot(root);
    const error = await expectKxmRejection(syncInstructionFiles(root), "memory_sync_no_target");
    expect(error.message).toBe("none of AGENTS.md, CLAUDE.md, GEMINI.md exists");
    expect(await snapshot(root)).toEqual(before);
  });

  it.each([
    ["a start with no end", `x\n${MEMORY_START}\n`],
    ["an end with no start", `x\n${MEMORY_END}\n`],
    ["an end before its start", `${MEMORY_END}\n${MEMORY_START}\n`],
    ["a second block", `${MEMORY_START}${MEMORY_END}\n${MEMORY_START}${MEMORY_END}\n`],
  ])("writes no file at all when only the last file has %s", async (_name, broken) => {
    const root = await project({
      "AGENTS.md": "# Agents\n",
      "CLAUDE.md": `# Claude\n${MEMORY_START}\nold\n${MEMORY_END}\n`,
      "GEMINI.md": broken,
    });
    const before = await snapshot(root);
    const error = await expectKxmRejection(syncInstructionFiles(root), "memory_sync_refused");
    expect(error.message).toMatch(/^GEMINI\.md has .*; wrote no file\.$/);
    expect(await snapshot(root)).toEqual(before);
  });

  it("fails with memory_invalid before writing anything when a memory file is malformed", async () => {
    const root = await project({ "AGENTS.md": "# Agents\n" });
    await putFact(root, "broken.md", { scope: "team" });
    const before = await snapshot(root);
    await expectKxmRejection(syncInstructionFiles(root), "memory_invalid");
    expect(await snapshot(root)).toEqual(before);
  });

  it("reports the actions of a dry run and writes nothing", async () => {
    const root = await project({
      "AGENTS.md": "# Agents\n",
      "CLAUDE.md": `${MEMORY_START}\nold\n${MEMORY_END}\n`,
      "GEMINI.md": `${block}\n`,
    });
    const before = await snapshot(root);
    const result = await syncInstructionFiles(root, { dryRun: true });
    expect(result.files).toEqual([
      { file: "AGENTS.md", action: "appended" },
      { file: "CLAUDE.md", action: "updated" },
      { file: "GEMINI.md", action: "unchanged" },
    ]);
    expect(await snapshot(root)).toEqual(before);
  });

  it("writes the empty block when no fact is active", async () => {
    const root = await tempRoot();
    await put(root, "CLAUDE.md", "");
    await syncInstructionFiles(root);
    expect(await readFile(join(root, "CLAUDE.md"), "utf8")).toBe(`${EMPTY_BLOCK}\n`);
  });

  it("writes through a symlink to a file inside the project and keeps the link", async () => {
    const root = await project({ "AGENTS.md": "# Agents\n" });
    await symlink("AGENTS.md", join(root, "CLAUDE.md"));
    const result = await syncInstructionFiles(root);
    expect(result.files).toEqual([
      { file: "AGENTS.md", action: "appended" },
      { file: "CLAUDE.md", action: "appended" },
    ]);
    expect((await lstat(join(root, "CLAUDE.md"))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(root, "CLAUDE.md"))).toBe("AGENTS.md");
    expect(await readFile(join(root, "AGENTS.md"), "utf8")).toBe(`# Agents\n\n${block}\n`);
    expect((await syncInstructionFiles(root)).files.map((file) => file.action)).toEqual([
      "unchanged",
      "unchanged",
    ]);
  });

  it("refuses a symlink outside the project, a dangling symlink and a folder, writing nothing", async () => {
    const outside = await tempRoot();
    await put(outside, "AGENTS.md", "# Elsewhere\n");
    const cases: Array<[string, (root: string) => Promise<void>, string]> = [
      [
        "outside",
        (root) => symlink(join(outside, "AGENTS.md"), join(root, "GEMINI.md")),
        "GEMINI.md is a symlink to a file outside the project; wrote no file.",
      ],
      [
        "dangling",
        (root) => symlink("missing.md", join(root, "GEMINI.md")),
        "GEMINI.md is a symlink that does not resolve to a file; wrote no file.",
      ],
      ["folder", (root) => mkdir(join(root, "GEMINI.md")), "GEMINI.md is not a regular file; wrote no file."],
    ];
    for (const [, make, message] of cases) {
      const root = await project({ "AGENTS.md": "# Agents\n" });
      await make(root);
      const before = await snapshot(root);
      const error = await expectKxmRejection(syncInstructionFiles(root), "memory_sync_refused");
      expect(error.message).toBe(message);
      expect(await snapshot(root)).toEqual(before);
    }
    expect(await readFile(join(outside, "AGENTS.md"), "utf8")).toBe("# Elsewhere\n");
  });

  it("refuses a file that is not UTF-8 rather than rewrite its bytes", async () => {
    const root = await project({ "AGENTS.md": "# Agents\n" });
    await put(root, "CLAUDE.md", Uint8Array.from([0x23, 0x20, 0xe9, 0x0a]));
    const before = await snapshot(root);
    const error = await expectKxmRejection(syncInstructionFiles(root), "memory_sync_refused");
    expect(error.message).toBe("CLAUDE.md is not valid UTF-8; wrote no file.");
    expect(await snapshot(root)).toEqual(before);
  });
});
