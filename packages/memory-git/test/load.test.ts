import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { type Authority, ORIGIN_CEILINGS, ORIGINS, type Origin } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import { factToContextItem } from "../src/fact-item.js";
import { memoryDir } from "../src/layout.js";
import { activeFacts, loadMemory, validateMemory } from "../src/load.js";
import { MEMORY_SCOPES, parseMemoryFile } from "../src/memory-file.js";
import {
  expectKxmError,
  expectKxmRejection,
  factText,
  put,
  putFact,
  TEST_RUNNER_MD,
  tempRoot,
} from "./support/memory-fixtures.js";

const SECRET = `ghp_${"a1B2".repeat(9)}`;

describe("memoryDir", () => {
  it("is <root>/.kxm/memory", () => {
    expect(memoryDir("/repo")).toBe(join("/repo", ".kxm", "memory"));
  });
});

describe("loadMemory", () => {
  it("loads every *.md directly in .kxm/memory, sorted by id (code units), with project-relative paths", async () => {
    const root = await tempRoot();
    await putFact(root, "a.md", { id: "zeta" });
    await putFact(root, "b.md", { id: "alpha" });
    await putFact(root, "c.md", { id: "beta_2" });
    await putFact(root, "d.md", { id: "beta-2" });
    const facts = await loadMemory(root);
    expect(facts.map((fact) => [fact.id, fact.file])).toEqual([
      ["alpha", ".kxm/memory/b.md"],
      ["beta-2", ".kxm/memory/d.md"],
      ["beta_2", ".kxm/memory/c.md"],
      ["zeta", ".kxm/memory/a.md"],
    ]);
  });

  it("holds no facts when the folder is missing", async () => {
    expect(await loadMemory(await tempRoot())).toEqual([]);
  });

  it("never loads candidates, subfolders or files that are not *.md", async () => {
    const root = await tempRoot();
    await putFact(root, "kept.md", { id: "kept" });
    await putFact(root, "candidates/cand_project_0123456789ab.md", { id: "cand_project_0123456789ab" });
    await putFact(root, "archive/old.md", { id: "old" });
    await put(root, ".kxm/memory/candidates/broken.md", "not memory");
    await put(root, ".kxm/memory/notes.txt", "not memory");
    await put(root, ".kxm/memory/README.markdown", "not memory");
    await mkdir(join(root, ".kxm/memory/folder.md"));
    expect((await loadMemory(root)).map((fact) => fact.id)).toEqual(["kept"]);
  });

  it("fails the whole load on the first malformed file in file-name order, naming it", async () => {
    const root = await tempRoot();
    await putFact(root, "a-good.md", { id: "good" });
    await putFact(root, "c-bad.md", { scope: "team" });
    await putFact(root, "b-bad.md", { kind: undefined });
    const error = await expectKxmRejection(loadMemory(root), "memory_invalid");
    expect(error.message).toBe(".kxm/memory/b-bad.md: kind: is required");
  });

  it("refuses a control-plane field with 403 context_authority_violation naming the file", async () => {
    const root = await tempRoot();
    await putFact(root, "grant.md", { permissions: "[write]" });
    const error = await expectKxmRejection(loadMemory(root), "context_authority_violation");
    expect(error.message).toBe(
      '.kxm/memory/grant.md: memory files may not carry the control-plane field "permissions"',
    );
  });

  it("refuses two files with one id, naming the second file and the first", async () => {
    const root = await tempRoot();
    await putFact(root, "b.md", { id: "same" });
    await putFact(root, "a.md", { id: "same" });
    const error = await expectKxmRejection(loadMemory(root), "memory_invalid");
    expect(error.message).toBe(".kxm/memory/b.md: id: duplicates .kxm/memory/a.md");
  });

  it("refuses a symlinked memory file instead of following it", async () => {
    const root = await tempRoot();
    const target = await put(root, "docs/fact.md", factText());
    await mkdir(join(root, ".kxm/memory"), { recursive: true });
    await symlink(target, join(root, ".kxm/memory/linked.md"));
    const error = await expectKxmRejection(loadMemory(root), "memory_invalid");
    expect(error.message).toBe(
      ".kxm/memory/linked.md: (file): is a symlink; memory files must be regular files",
    );
  });

  it("reads UTF-8 with a byte order mark", async () => {
    const root = await tempRoot();
    await put(root, ".kxm/memory/bom.md", `\uFEFF${factText({ summary: "Ünïcode ✓ summary" })}`);
    expect((await loadMemory(root))[0]?.summary).toBe("Ünïcode ✓ summary");
  });
});

describe("activeFacts", () => {
  it("keeps only lifecycle active, in id order", async () => {
    const root = await tempRoot();
    await putFact(root, "a.md", { id: "c-active" });
    await putFact(root, "b.md", { id: "b-old", lifecycle: "deprecated" });
    await putFact(root, "c.md", { id: "a-replaced", lifecycle: "superseded" });
    await putFact(root, "d.md", { id: "a-active" });
    expect((await activeFacts(root)).map((fact) => fact.id)).toEqual(["a-active", "c-active"]);
  });
});

describe("validateMemory", () => {
  it("checks every file and reports every problem, in file order", async () => {
    const root = await tempRoot();
    await putFact(root, "a.md", { id: "ok" });
    await putFact(root, "b.md", { schema: "kxm.memory.v0" });
    await putFact(root, "c.md", { token: SECRET });
    await putFact(root, "d.md", { id: "ok" });
    await putFact(root, "e.md", { id: "peer-claim", provenance: "\n  sourceType: peer" });
    await putFact(root, "f.md", {
      id: "peer-old",
      provenance: "\n  sourceType: peer",
      lifecycle: "deprecated",
    });
    await put(root, ".kxm/memory/g.md", "no front matter");
    await putFact(root, "candidates/h.md", { schema: "broken" });
    const result = await validateMemory(root);
    expect(result.files).toEqual(["a", "b", "c", "d", "e", "f", "g"].map((name) => `.kxm/memory/${name}.md`));
    expect(result.problems).toEqual([
      { file: ".kxm/memory/b.md", field: "schema", rule: "must be kxm.memory.v1" },
      { file: ".kxm/memory/c.md", field: "token", rule: "control-plane field is refused" },
      { file: ".kxm/memory/d.md", field: "id", rule: "duplicates .kxm/memory/a.md" },
      {
        file: ".kxm/memory/e.md",
        field: "(context item)",
        rule: "content of origin peer cannot claim instruction authority",
      },
      {
        file: ".kxm/memory/g.md",
        field: "(front matter)",
        rule: "must open the file: --- then YAML then ---",
      },
    ]);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("reports nothing for a clean folder and for a missing one", async () => {
    const root = await tempRoot();
    expect(await validateMemory(root)).toEqual({ files: [], problems: [] });
    await put(root, ".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    expect(await validateMemory(root)).toEqual({ files: [".kxm/memory/test-runner.md"], problems: [] });
  });

  it("reports a fact whose id is too long to be an item id", async () => {
    const root = await tempRoot();
    await putFact(root, "long.md", { id: "a".repeat(130) });
    const { problems } = await validateMemory(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toEqual({
      file: ".kxm/memory/long.md",
      field: "id",
      rule: "must be at most 124 characters",
    });
  });
});

describe("factToContextItem", () => {
  it("maps the guide's test-runner.md example", () => {
    const fact = parseMemoryFile(".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    expect(factToContextItem(fact, "demo")).toEqual({
      id: "mem_test-runner",
      kind: "knowledge",
      project: "demo",
      summary: "Run the test suite with npm test before every commit",
      provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
      authority: "instruction",
      confidence: "verified",
      scope: "project",
    });
  });

  const RANK: Record<Authority, number> = { policy: 3, instruction: 2, evidence: 1, hypothesis: 0 };
  const sourceTypes = [...ORIGINS, "pull-request", "Git", "kxm memory note"];
  const cases = MEMORY_SCOPES.flatMap((scope) =>
    ["instruction", "evidence", "promoted"].flatMap((authority) =>
      sourceTypes.map((sourceType) => [scope, authority, sourceType] as const),
    ),
  );

  it.each(cases)("scope %s, authority %s, sourceType %s", (scope, authority, sourceType) => {
    const fact = parseMemoryFile(
      ".kxm/memory/x.md",
      factText({ scope, authority, provenance: `\n  sourceType: "${sourceType}"\n  sourceRef: docs/x.md` }),
    );
    const origin: Origin = (ORIGINS as readonly string[]).includes(sourceType)
      ? (sourceType as Origin)
      : "git";
    const itemAuthority: Authority = authority === "evidence" ? "evidence" : "instruction";
    if (RANK[itemAuthority] > RANK[ORIGIN_CEILINGS[origin]]) {
      const error = expectKxmError(() => factToContextItem(fact, "demo"), "context_authority_violation");
      expect(error.message).toBe(`content of origin ${origin} cannot claim ${itemAuthority} authority`);
      return;
    }
    if (origin === "derived") {
      // An authored fact has no ancestors, and a derived item must name at least one.
      expectKxmError(() => factToContextItem(fact, "demo"), "invalid_context_item");
      return;
    }
    expect(factToContextItem(fact, "demo")).toEqual({
      id: "mem_use-pnpm",
      kind: "knowledge",
      project: scope === "operator" ? "_shared" : "demo",
      summary: "Use pnpm, not npm, in this repository",
      provenance: { sourceType: origin, sourceRef: "docs/x.md" },
      authority: itemAuthority,
      confidence: "verified",
      scope,
    });
  });

  it("keeps evidence refs when there are some, and the confidence", () => {
    const fact = parseMemoryFile(
      ".kxm/memory/x.md",
      factText({ evidenceRefs: "[pr-12, docs/a.md]", confidence: "uncertain", authority: "evidence" }),
    );
    expect(factToContextItem(fact, "demo")).toMatchObject({
      evidenceRefs: ["pr-12", "docs/a.md"],
      confidence: "uncertain",
      authority: "evidence",
    });
    expect(factToContextItem({ ...fact, evidenceRefs: [] }, "demo")).not.toHaveProperty("evidenceRefs");
  });

  it("redacts a secret in the summary, even from a fact built by hand", () => {
    const fact = parseMemoryFile(".kxm/memory/x.md", factText({ summary: `Token is ${SECRET}` }));
    expect(fact.summary).toBe("Token is [redacted]");
    expect(factToContextItem({ ...fact, summary: `Token is ${SECRET}` }, "demo").summary).toBe(
      "Token is [redacted]",
    );
  });
});
