import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { noteCandidate } from "../src/candidates.js";
import { loadMemory, validateMemory } from "../src/load.js";
import type { MemoryScope } from "../src/memory-file.js";
import { parseMemoryFile } from "../src/memory-file.js";
import { computeMemoryRevision } from "../src/revision.js";
import { expectKxmRejection, putFact, snapshot, tempRoot } from "./support/memory-fixtures.js";

const SECRET = `ghp_${"a1B2".repeat(9)}`;

function expectedHex(scope: string, kind: string, summary: string): string {
  return createHash("sha256").update(`${scope}\0${kind}\0${summary}`).digest("hex").slice(0, 12);
}

describe("noteCandidate", () => {
  it("writes .kxm/memory/candidates/cand_<scope>_<12 hex>.md, the hex from scope, kind and summary", async () => {
    const root = await tempRoot();
    const summary = "Use pnpm, not npm, in this repository";
    const result = await noteCandidate(root, { summary, kind: "convention" });
    const hex = expectedHex("project", "convention", summary);
    expect(result).toEqual({
      id: `cand_project_${hex}`,
      file: `.kxm/memory/candidates/cand_project_${hex}.md`,
      created: true,
    });
    expect(result.id).toMatch(/^cand_project_[0-9a-f]{12}$/);
  });

  it("writes a file that parses as the candidate the guide describes", async () => {
    const root = await tempRoot();
    const { id, file } = await noteCandidate(root, { summary: "  Run lint before push  ", source: "PR #42" });
    const text = await readFile(join(root, file), "utf8");
    expect(parseMemoryFile(file, text)).toEqual({
      file,
      id,
      scope: "project",
      kind: "learning",
      summary: "Run lint before push",
      provenance: { sourceType: "git", sourceRef: "PR #42" },
      authority: "evidence",
      confidence: "probable",
      lifecycle: "active",
      evidenceRefs: [],
      body: "",
    });
    expect(text.startsWith("---\nschema: kxm.memory.v1\n")).toBe(true);
  });

  it.each(["agent", "project", "run", "operator"] as const)(
    "names the file after scope %s",
    async (scope) => {
      const root = await tempRoot();
      const { id } = await noteCandidate(root, { summary: "Something learned", scope });
      expect(id).toBe(`cand_${scope}_${expectedHex(scope, "learning", "Something learned")}`);
    },
  );

  it("round-trips summaries that YAML would misread if written by hand", async () => {
    const root = await tempRoot();
    for (const summary of [
      "key: value",
      "yes",
      "123",
      "null",
      "- a list item?",
      "# not a comment",
      "---",
      "first line\n---\nlast line",
      `"double" and 'single' quotes`,
      "trailing colon:",
      "@at %percent &amp *star !bang",
      "{ flow: map }",
      "x".repeat(4_000),
      "ünïcode ✓ and emoji 🚀",
    ]) {
      const { file } = await noteCandidate(root, { summary, kind: "edge: case" });
      const fact = parseMemoryFile(file, await readFile(join(root, file), "utf8"));
      expect(fact.summary).toBe(summary);
      expect(fact.kind).toBe("edge: case");
    }
  });

  it("is idempotent: the same note finds the existing file and writes nothing", async () => {
    const root = await tempRoot();
    const first = await noteCandidate(root, { summary: "Cache the build", kind: "convention" });
    const path = join(root, first.file);
    await writeFile(path, "edited by a reviewer\n");
    const second = await noteCandidate(root, { summary: "  Cache the build ", kind: "convention" });
    expect(second).toEqual({ ...first, created: false });
    expect(await readFile(path, "utf8")).toBe("edited by a reviewer\n");
    const other = await noteCandidate(root, { summary: "Cache the build", kind: "learning" });
    expect(other.id).not.toBe(first.id);
  });

  it("redacts secrets before writing and before hashing", async () => {
    const root = await tempRoot();
    const { file, id } = await noteCandidate(root, {
      summary: `Use ${SECRET} for CI`,
      source: `ci?t=${SECRET}`,
    });
    const text = await readFile(join(root, file), "utf8");
    expect(text).not.toContain(SECRET);
    expect(parseMemoryFile(file, text)).toMatchObject({
      summary: "Use [redacted] for CI",
      provenance: { sourceRef: "ci?t=[redacted]" },
    });
    expect(id).toBe(`cand_project_${expectedHex("project", "learning", "Use [redacted] for CI")}`);
  });

  it("is never loaded, never validated and never changes the memory revision", async () => {
    const root = await tempRoot();
    await putFact(root, "kept.md", { id: "kept" });
    const before = await computeMemoryRevision(root);
    await noteCandidate(root, { summary: "A candidate" });
    expect((await loadMemory(root)).map((fact) => fact.id)).toEqual(["kept"]);
    expect((await validateMemory(root)).files).toEqual([".kxm/memory/kept.md"]);
    expect(await computeMemoryRevision(root)).toBe(before);
  });

  it("refuses an empty summary, one over 4,000 characters, a bad scope and an empty kind, writing nothing", async () => {
    const root = await tempRoot();
    expect(
      (await expectKxmRejection(noteCandidate(root, { summary: " \n " }), "memory_invalid")).message,
    ).toBe("summary: must not be empty");
    const long = await expectKxmRejection(
      noteCandidate(root, { summary: "x".repeat(4_001) }),
      "context_limits_exceeded",
    );
    expect(long.message).toBe("summary: over 4000 characters after redaction");
    await expectKxmRejection(
      noteCandidate(root, { summary: "ok", scope: "team" as unknown as MemoryScope }),
      "memory_invalid",
    );
    await expectKxmRejection(noteCandidate(root, { summary: "ok", kind: "  " }), "memory_invalid");
    await expectKxmRejection(noteCandidate(root, { summary: "ok", source: "" }), "memory_invalid");
    expect(await snapshot(root)).toEqual({});
  });
});
