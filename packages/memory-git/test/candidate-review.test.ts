import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  acceptMemoryCandidate,
  listMemoryCandidates,
  rejectMemoryCandidate,
} from "../src/candidate-review.js";
import { noteCandidate } from "../src/candidates.js";
import { loadMemory, validateMemory } from "../src/load.js";
import { computeMemoryRevision } from "../src/revision.js";
import { listSkills } from "../src/skills/store.js";
import { expectKxmRejection, put, putFact, snapshot, tempRoot } from "./support/memory-fixtures.js";

/** The promise is refused with `code` and a message matching `message`. */
async function refused(
  promise: Promise<unknown>,
  code: Parameters<typeof expectKxmRejection>[1],
  message: RegExp,
) {
  const error = await expectKxmRejection(promise, code);
  expect(error.message).toMatch(message);
}

const NOW = new Date("2026-12-02T10:00:00.000Z");

async function twoCandidates(root: string) {
  const a = await noteCandidate(root, { summary: "Run pnpm test before every push", kind: "convention" });
  const b = await noteCandidate(root, {
    summary: "Run run_9 failed twice on the flaky release test",
    kind: "run-summary",
    source: "run:run_9",
  });
  return { a, b };
}

describe("listMemoryCandidates", () => {
  it("lists every candidate sorted by id with its scope, kind, summary and source, and names broken files", async () => {
    const root = await tempRoot();
    const { a, b } = await twoCandidates(root);
    await put(root, ".kxm/memory/candidates/broken.md", "no front matter\n");
    const listed = await listMemoryCandidates(root);
    const expected = [
      {
        id: a.id,
        scope: "project",
        kind: "convention",
        summary: "Run pnpm test before every push",
        source: null,
        file: a.file,
      },
      {
        id: b.id,
        scope: "project",
        kind: "run-summary",
        summary: "Run run_9 failed twice on the flaky release test",
        source: "run:run_9",
        file: b.file,
      },
    ].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(listed.candidates).toEqual(expected);
    expect(listed.problems).toEqual([
      {
        file: ".kxm/memory/candidates/broken.md",
        field: "(front matter)",
        rule: "must open the file: --- then YAML then ---",
      },
    ]);
  });

  it("lists nothing for a project without candidates", async () => {
    expect(await listMemoryCandidates(await tempRoot())).toEqual({ candidates: [], problems: [] });
  });
});

describe("acceptMemoryCandidate", () => {
  it("writes a valid fact with the reviewer's id, authority and name, and removes the candidate", async () => {
    const root = await tempRoot();
    const { a } = await twoCandidates(root);
    const before = await computeMemoryRevision(root);
    const accepted = await acceptMemoryCandidate(root, a.id, {
      id: "pnpm-test-before-push",
      authority: "instruction",
      confidence: "verified",
      acceptedBy: "lead@example.com",
      now: NOW,
    });
    expect(accepted).toEqual({
      candidate: a.id,
      id: "pnpm-test-before-push",
      file: ".kxm/memory/pnpm-test-before-push.md",
      authority: "instruction",
      confidence: "verified",
      acceptedBy: "lead@example.com",
      acceptedAt: "2026-12-02T10:00:00.000Z",
    });
    expect(await readFile(join(root, accepted.file), "utf8")).toBe(
      [
        "---",
        "schema: kxm.memory.v1",
        "id: pnpm-test-before-push",
        "scope: project",
        "kind: convention",
        "summary: Run pnpm test before every push",
        "provenance:",
        "  sourceType: git",
        "authority: instruction",
        "confidence: verified",
        "lifecycle: active",
        "evidenceRefs:",
        `  - candidate:${a.id}`,
        "acceptedBy: lead@example.com",
        "acceptedAt: 2026-12-02T10:00:00.000Z",
        "---",
        "",
      ].join("\n"),
    );
    // The memory loader reads it as a fact; validate finds nothing wrong; the candidate is gone.
    const facts = await loadMemory(root);
    expect(facts.map((fact) => [fact.id, fact.authority, fact.confidence, fact.evidenceRefs])).toEqual([
      ["pnpm-test-before-push", "instruction", "verified", [`candidate:${a.id}`]],
    ]);
    expect((await validateMemory(root)).problems).toEqual([]);
    expect((await listMemoryCandidates(root)).candidates.map((c) => c.id)).not.toContain(a.id);
    // A fact is memory: the revision moves (the reviewer commits it).
    expect(await computeMemoryRevision(root)).not.toBe(before);
  });

  it("keeps the candidate's confidence and source when none is given", async () => {
    const root = await tempRoot();
    const { b } = await twoCandidates(root);
    await acceptMemoryCandidate(root, b.id, {
      id: "flaky-release-test",
      authority: "evidence",
      acceptedBy: "lead",
      now: NOW,
    });
    const [fact] = await loadMemory(root);
    expect(fact).toMatchObject({
      id: "flaky-release-test",
      kind: "run-summary",
      authority: "evidence",
      confidence: "probable",
      provenance: { sourceType: "git", sourceRef: "run:run_9" },
    });
  });

  it("refuses an id a fact already holds, by file or by id, and writes nothing", async () => {
    const root = await tempRoot();
    const { a } = await twoCandidates(root);
    await putFact(root, "use-pnpm.md", { id: "use-pnpm" });
    await putFact(root, "other-name.md", { id: "held-id" });
    const before = await snapshot(join(root, ".kxm"));
    const accept = (id: string) =>
      acceptMemoryCandidate(root, a.id, { id, authority: "instruction", acceptedBy: "lead", now: NOW });
    await refused(
      accept("use-pnpm"),
      "memory_fact_exists",
      /use-pnpm is already held by \.kxm\/memory\/use-pnpm\.md/,
    );
    await refused(accept("held-id"), "memory_fact_exists", /held by \.kxm\/memory\/other-name\.md/);
    await refused(accept("Not An Id"), "memory_invalid", /: id: must match/);
    await refused(
      acceptMemoryCandidate(root, a.id, {
        id: "fine",
        authority: "boss" as "instruction",
        acceptedBy: "lead",
        now: NOW,
      }),
      "memory_invalid",
      /authority: must be one of instruction, evidence, promoted/,
    );
    expect(await snapshot(join(root, ".kxm"))).toEqual(before);
  });

  it("answers memory_candidate_not_found for an unknown candidate and invalid_request for a malformed id", async () => {
    const root = await tempRoot();
    const options = { id: "x", authority: "evidence" as const, acceptedBy: "lead", now: NOW };
    await refused(
      acceptMemoryCandidate(root, "cand_project_000000000000", options),
      "memory_candidate_not_found",
      /no candidate cand_project_000000000000 waits for review$/,
    );
    await refused(acceptMemoryCandidate(root, "../x", options), "invalid_request", /candidate:/);
  });
});

describe("rejectMemoryCandidate", () => {
  it("keeps the candidate under candidates/rejected/ with who, when and why; never loaded, revision unchanged", async () => {
    const root = await tempRoot();
    await putFact(root, "use-pnpm.md", { id: "use-pnpm" });
    const { a, b } = await twoCandidates(root);
    const revision = await computeMemoryRevision(root);
    const rejected = await rejectMemoryCandidate(root, b.id, {
      reason: "One flaky run is not a fact",
      rejectedBy: "lead@example.com",
      now: NOW,
    });
    expect(rejected).toEqual({
      id: b.id,
      file: `.kxm/memory/candidates/rejected/${b.id}.md`,
      rejectedBy: "lead@example.com",
      rejectedAt: "2026-12-02T10:00:00.000Z",
      reason: "One flaky run is not a fact",
    });
    const text = await readFile(join(root, rejected.file), "utf8");
    expect(text).toContain(`id: ${b.id}\n`);
    expect(text).toContain("summary: Run run_9 failed twice on the flaky release test\n");
    expect(text).toContain("rejectedBy: lead@example.com\n");
    expect(text).toContain("reason: One flaky run is not a fact\n");
    // Outside the revision, never loaded, not listed as waiting.
    expect(await computeMemoryRevision(root)).toBe(revision);
    expect((await loadMemory(root)).map((fact) => fact.id)).toEqual(["use-pnpm"]);
    expect((await validateMemory(root)).files).toEqual([".kxm/memory/use-pnpm.md"]);
    expect((await listMemoryCandidates(root)).candidates.map((c) => c.id)).toEqual([a.id]);
    // Noting it again finds the record, and reviewing it again says it was rejected.
    const again = await noteCandidate(root, {
      summary: "Run run_9 failed twice on the flaky release test",
      kind: "run-summary",
      source: "run:run_9",
    });
    expect(again).toEqual({ id: b.id, file: rejected.file, created: false });
    await refused(
      rejectMemoryCandidate(root, b.id, { reason: "again", rejectedBy: "lead", now: NOW }),
      "memory_candidate_not_found",
      /it was rejected$/,
    );
  });

  it("refuses an empty reason and writes nothing", async () => {
    const root = await tempRoot();
    const { a } = await twoCandidates(root);
    const before = await snapshot(join(root, ".kxm"));
    await refused(
      rejectMemoryCandidate(root, a.id, { reason: "  ", rejectedBy: "lead", now: NOW }),
      "invalid_request",
      /reason: must not be empty/,
    );
    expect(await snapshot(join(root, ".kxm"))).toEqual(before);
  });
});

describe("the distillation scratch folder", () => {
  it("is not read as a skill candidate", async () => {
    const root = await tempRoot();
    await put(root, ".kxm/skills/candidates/distilled/a-skill/SKILL.md", "---\nname: a-skill\n---\n");
    expect(await listSkills(root)).toEqual([]);
  });
});
