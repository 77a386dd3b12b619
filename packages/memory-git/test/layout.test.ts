import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { noteCandidate } from "../src/candidates.js";
import {
  AUTHORED_MEMORY_PATHS,
  authoredMemoryDirs,
  isMemoryCandidate,
  KXM_PATHS,
  kxmDir,
  memoryCandidatesDir,
  memoryDir,
  promotedSkillsDir,
  skillsDir,
} from "../src/layout.js";
import { computeMemoryRevision } from "../src/revision.js";
import { promoteSkill, proposeSkill, rejectSkill } from "../src/skills/store.js";
import { put, putFact, tempRoot } from "./support/memory-fixtures.js";
import { NOW, skillMarkdown, skillSource, tempDir } from "./support/skills-fixtures.js";

const docs = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs");

/** Every file below `dir`, project-relative with forward slashes. */
async function files(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(root, path)));
    else
      out.push(
        path
          .slice(root.length + 1)
          .split("\\")
          .join("/"),
      );
  }
  return out.sort();
}

describe("the .kxm layout", () => {
  it("names each path as the guides and the CLI reference do", async () => {
    const reference = await readFile(join(docs, "reference", "cli.md"), "utf8");
    for (const path of Object.values(KXM_PATHS)) expect(reference, path).toContain(path);
    expect(AUTHORED_MEMORY_PATHS).toEqual([".kxm/memory", ".kxm/skills/promoted"]);
  });

  it("joins every folder under the root", () => {
    expect(kxmDir("/repo")).toBe(join("/repo", ".kxm"));
    expect(memoryDir("/repo")).toBe(join("/repo", ".kxm", "memory"));
    expect(memoryCandidatesDir("/repo")).toBe(join("/repo", ".kxm", "memory", "candidates"));
    expect(skillsDir("/repo")).toBe(join("/repo", ".kxm", "skills"));
    expect(promotedSkillsDir("/repo")).toBe(join("/repo", ".kxm", "skills", "promoted"));
    expect(authoredMemoryDirs("/repo")).toEqual([memoryDir("/repo"), promotedSkillsDir("/repo")]);
  });

  it("counts a file as a candidate only inside a candidates folder below memory", () => {
    expect(isMemoryCandidate("candidates/cand_project_0123456789ab.md")).toBe(true);
    expect(isMemoryCandidate("team/candidates/x.md")).toBe(true);
    expect(isMemoryCandidate("candidates.md")).toBe(false);
    expect(isMemoryCandidate("test-runner.md")).toBe(false);
  });

  it("is where noting, proposing, promoting and rejecting write, and a candidate leaves the revision alone", async () => {
    const root = await tempRoot();
    await putFact(root, "test-runner.md");
    const before = await computeMemoryRevision(root);
    const noted = await noteCandidate(root, { summary: "Use pnpm, not npm" });
    expect(noted.file.startsWith(`${KXM_PATHS.memoryCandidates}/`)).toBe(true);
    expect(await computeMemoryRevision(root)).toBe(before);
    await put(root, `${KXM_PATHS.memory}/deep/candidates/x.md`, "not memory\n");
    expect(await computeMemoryRevision(root)).toBe(before);

    const work = await tempDir("kxm-skill-src-");
    const kept = await proposeSkill(root, await skillSource(work), { proposedBy: "agent-7", now: NOW });
    const other = await proposeSkill(
      root,
      await skillSource(work, {
        skill: skillMarkdown({ name: "triage", description: "Triage a bug report" }),
      }),
      { proposedBy: "agent-7", now: NOW },
    );
    const written = (await files(root)).filter((path) => path.startsWith(`${KXM_PATHS.skills}/`));
    expect(written.filter((path) => path.endsWith("metadata.json"))).toEqual([
      `${KXM_PATHS.skillCandidates}/${kept.id}/metadata.json`,
      `${KXM_PATHS.skillCandidates}/${other.id}/metadata.json`,
    ]);
    await promoteSkill(root, kept.id, { promotedBy: "reviewer", evidenceRefs: ["pr:1"], now: NOW });
    await rejectSkill(root, other.id, { rejectedBy: "reviewer", reason: "duplicate", now: NOW });
    const stored = (await files(root)).filter((path) => path.endsWith("metadata.json"));
    expect(stored).toEqual([
      `${KXM_PATHS.promotedSkills}/${kept.id}/metadata.json`,
      `${KXM_PATHS.rejectedSkills}/${other.id}/metadata.json`,
    ]);
    expect(await computeMemoryRevision(root)).not.toBe(before);
  });
});
