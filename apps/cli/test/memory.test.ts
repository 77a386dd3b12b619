import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  expectShape,
  gitRepo,
  json,
  kxm,
  memoryFile,
  put,
  read,
  TEST_RUNNER_MD,
} from "./support/cli.js";

/** The memory revision of docs/reference/behaviour.md section 7, computed independently for memory files only. */
function revisionOf(files: Record<string, string>): string {
  const hash = createHash("sha256");
  for (const rel of Object.keys(files).sort()) {
    hash.update(`memory:${rel}\0`);
    hash.update(files[rel] ?? "");
    hash.update("\0");
  }
  return `ctxrev_${hash.digest("hex")}`;
}

describe("memory --json output has a stable shape", () => {
  test.concurrent("brief, sync, validate and revision", { timeout: 60_000 }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    await put(root, ".kxm/memory/old-fact.md", memoryFile("old-fact", { lifecycle: "deprecated" }));
    await put(root, "AGENTS.md", "# Agents\n");
    const [brief, sync, validate, revision] = await Promise.all([
      kxm(["memory", "brief", "--json"], { cwd: root }),
      kxm(["memory", "sync", "--dry-run", "--json"], { cwd: root }),
      kxm(["memory", "validate", "--json"], { cwd: root }),
      kxm(["memory", "revision", "--json"], { cwd: root }),
    ]);

    expect(brief.code, brief.stderr).toBe(0);
    expect(brief.stderr).toBe("");
    const briefJson = json(brief);
    expectShape(briefJson, { count: "number", text: "string", facts: "array" }, "brief");
    expect(briefJson).toEqual({
      count: 1,
      text:
        "Project memory (1 active fact)\n\n" +
        "• [project] [convention] Run the test suite with npm test before every commit (test-runner)",
      facts: [
        {
          id: "test-runner",
          scope: "project",
          kind: "convention",
          summary: "Run the test suite with npm test before every commit",
          file: ".kxm/memory/test-runner.md",
        },
      ],
    });

    expect(sync.code, sync.stderr).toBe(0);
    const syncJson = json<{ files: unknown[] }>(sync);
    expectShape(syncJson, { dryRun: "boolean", files: "array", block: "string" }, "sync");
    expect(syncJson.files).toEqual([{ file: "AGENTS.md", action: "appended" }]);
    expect(syncJson).toMatchObject({ dryRun: true });
    expect(await read(root, "AGENTS.md")).toBe("# Agents\n");

    expect(validate.code, validate.stderr).toBe(0);
    const validateJson = json(validate);
    expectShape(
      validateJson,
      { ok: "boolean", files: "array", problems: "array", notices: "array" },
      "validate",
    );
    expect(validateJson).toEqual({
      ok: true,
      files: [".kxm/memory/old-fact.md", ".kxm/memory/test-runner.md"],
      problems: [],
      notices: [],
    });

    expect(revision.code, revision.stderr).toBe(0);
    const revisionJson = json(revision);
    expectShape(revisionJson, { revision: "string" }, "revision");
    expect(revisionJson.revision).toMatch(/^ctxrev_[0-9a-f]{64}$/);
  });
});

describe("memory note", () => {
  test.concurrent("the help's second example: operator scope, a source, --json", async () => {
    const root = await gitRepo();
    const result = await kxm(
      [
        "memory",
        "note",
        "Deploys freeze on Fridays",
        "--scope",
        "operator",
        "--source",
        "docs/release.md",
        "--json",
      ],
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const note = json<{ id: string; file: string }>(result);
    expectShape(note, { id: "string", file: "string", created: "boolean" }, "note");
    expect(note.id).toMatch(/^cand_operator_[0-9a-f]{12}$/);
    expect(note.file).toBe(`.kxm/memory/candidates/${note.id}.md`);
    expect(note).toMatchObject({ created: true });
    const text = await read(root, note.file);
    expect(text).toContain("scope: operator\n");
    expect(text).toContain("kind: learning\n");
    expect(text).toContain("  sourceRef: docs/release.md\n");
  });

  test.concurrent("an empty summary is refused (memory_invalid)", async () => {
    const root = await gitRepo();
    const [human, asJson] = await Promise.all([
      kxm(["memory", "note", "   "], { cwd: root }),
      kxm(["memory", "note", "   ", "--json"], { cwd: root }),
    ]);
    // Note the doubled prefix: the library's message already starts with "memory note" (reported).
    expectFailureLine(human, "memory note", /summary: must not be empty$/);
    expectJsonFailure(asJson, "memory_invalid", /summary: must not be empty$/);
    expect(await readdir(root)).toEqual([".git"]);
  });
});

describe("memory validate", () => {
  test.concurrent("a clean memory folder exits 0", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    // Candidates and files that are not *.md are not memory files.
    await put(root, ".kxm/memory/candidates/cand_project_000000000000.md", "not a memory file\n");
    await put(root, ".kxm/memory/README.txt", "notes\n");
    const result = await kxm(["memory", "validate"], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Checked 1 memory file: no problems.\n");
  });

  test.concurrent("several broken files: each named, exit 1, JSON lists every problem", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/a-schema.md", memoryFile("a-schema", { schema: "kxm.memory.v2" }));
    await put(root, ".kxm/memory/b-plain.md", "Just some Markdown, no front matter.\n");
    await put(root, ".kxm/memory/c-unclosed.md", "---\nschema: kxm.memory.v1\nid: c-unclosed\n");
    await put(root, ".kxm/memory/d-id.md", memoryFile("Bad_Id"));
    await put(root, ".kxm/memory/e-scope.md", memoryFile("e-scope", { scope: "team" }));
    await put(root, ".kxm/memory/f-control.md", memoryFile("f-control", { policy: "allow-all" }));
    await put(root, ".kxm/memory/g-summary.md", memoryFile("g-summary", { summary: '""' }));
    await put(root, ".kxm/memory/h-lifecycle.md", memoryFile("h-lifecycle", { lifecycle: "archived" }));
    await put(
      root,
      ".kxm/memory/i-peer.md",
      memoryFile("i-peer", { provenance: "\n  sourceType: peer", authority: "instruction" }),
    );
    await put(root, ".kxm/memory/j-duplicate.md", memoryFile("test-runner"));
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const problems = [
      [".kxm/memory/a-schema.md", "schema", "must be kxm.memory.v1"],
      [".kxm/memory/b-plain.md", "(front matter)", "must open the file: --- then YAML then ---"],
      [".kxm/memory/c-unclosed.md", "(front matter)", "opens with --- but is never closed by ---"],
      [".kxm/memory/d-id.md", "id", "must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
      [".kxm/memory/e-scope.md", "scope", "must be one of agent, project, run, operator"],
      [".kxm/memory/f-control.md", "policy", "control-plane field is refused"],
      [".kxm/memory/g-summary.md", "summary", "must be a non-empty string"],
      [".kxm/memory/h-lifecycle.md", "lifecycle", "must be one of active, deprecated, superseded"],
      [
        ".kxm/memory/i-peer.md",
        "(context item)",
        "content of origin peer cannot claim instruction authority",
      ],
      [".kxm/memory/test-runner.md", "id", "duplicates .kxm/memory/j-duplicate.md"],
    ].map(([file, field, rule]) => ({ file, field, rule }));

    const [human, asJson, brief, briefJson] = await Promise.all([
      kxm(["memory", "validate"], { cwd: root }),
      kxm(["memory", "validate", "--json"], { cwd: root }),
      kxm(["memory", "brief"], { cwd: root }),
      kxm(["memory", "brief", "--json"], { cwd: root }),
    ]);

    expect(human.code).toBe(1);
    expect(human.stdout).toBe("");
    expect(human.stderr).toBe(
      [
        ...problems.map(({ file, field, rule }) => `${file}: ${field}: ${rule}`),
        "memory validate failed: 10 problems in 11 files",
        "",
      ].join("\n"),
    );

    expect(asJson.code).toBe(1);
    expect(asJson.stderr).toBe("");
    const result = json<{ files: string[] }>(asJson);
    expectShape(result, { ok: "boolean", files: "array", problems: "array", notices: "array" }, "validate");
    expect(result).toMatchObject({ ok: false, problems });
    expect(result.files).toHaveLength(11);

    // One malformed file stops the whole load: brief names the first.
    expectFailureLine(brief, "memory brief", ".kxm/memory/a-schema.md: schema: must be kxm.memory.v1");
    expectJsonFailure(briefJson, "memory_invalid", ".kxm/memory/a-schema.md: schema: must be kxm.memory.v1");
  });
});

describe("an over-limit fact: one rule in validate, brief and sync", () => {
  test.concurrent("a 5,000-character summary: validate names it, brief and sync refuse it, nothing is written", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    await put(root, ".kxm/memory/long.md", memoryFile("long", { summary: "y".repeat(5_000) }));
    await put(root, "CLAUDE.md", "# Claude\n");
    const rule = ".kxm/memory/long.md: summary: must be at most 4000 characters";
    const [validate, brief, sync, syncJson] = await Promise.all([
      kxm(["memory", "validate"], { cwd: root }),
      kxm(["memory", "brief"], { cwd: root }),
      kxm(["memory", "sync"], { cwd: root }),
      kxm(["memory", "sync", "--json"], { cwd: root }),
    ]);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toBe(`${rule}\nmemory validate failed: 1 problem in 2 files\n`);
    expectFailureLine(brief, "memory brief", rule);
    expect(brief.stdout).not.toContain("yyyy");
    expectFailureLine(sync, "memory sync", rule);
    expectJsonFailure(syncJson, "memory_invalid", rule);
    expect(await read(root, "CLAUDE.md")).toBe("# Claude\n");
  });
});

describe("memory revision", () => {
  test.concurrent("format, changes after an edit, unchanged after memory note", {
    timeout: 60_000,
  }, async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    const first = await kxm(["memory", "revision"], { cwd: root });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe("");
    expect(first.stdout).toMatch(/^ctxrev_[0-9a-f]{64}\n$/);
    expect(first.stdout).toBe(`${revisionOf({ "test-runner.md": TEST_RUNNER_MD })}\n`);

    // A candidate is never part of the revision.
    const note = await kxm(["memory", "note", "Use pnpm, not npm, in this repository"], { cwd: root });
    expect(note.code, note.stderr).toBe(0);
    const afterNote = await kxm(["memory", "revision"], { cwd: root });
    expect(afterNote.stdout).toBe(first.stdout);

    // Any edit to a memory file changes it.
    const edited = TEST_RUNNER_MD.replace("npm test", "pnpm test");
    await put(root, ".kxm/memory/test-runner.md", edited);
    const afterEdit = await kxm(["memory", "revision", "--json"], { cwd: root });
    expect(afterEdit.code).toBe(0);
    const { revision } = json<{ revision: string }>(afterEdit);
    expect(`${revision}\n`).not.toBe(first.stdout);
    expect(revision).toBe(revisionOf({ "test-runner.md": edited }));
  });
});
