import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { redactSecrets } from "@kxm/provenance";
import { describe, expect, it } from "vitest";
import { loadPromotedSkillItems, skillToContextItem } from "../src/skills/items.js";
import { type SkillMetadata, serializeSkillMetadata } from "../src/skills/metadata.js";
import { skillContentSha256, skillId } from "../src/skills/skill-file.js";
import { promoteSkill, proposeSkill, verifyPromotedSkills, verifySkill } from "../src/skills/store.js";
import {
  expectKxmRejection,
  LATER,
  NOW,
  sha256,
  skillFolders,
  skillMarkdown,
  skillSource,
  snapshot,
  tempDir,
  writeFiles,
} from "./support/skills-fixtures.js";

async function promotedSkill(root: string, work: string, name = "release-notes"): Promise<SkillMetadata> {
  const source = await skillSource(work, { skill: skillMarkdown({ name }) });
  const candidate = await proposeSkill(root, source, { proposedBy: "agent-7", now: NOW });
  return promoteSkill(root, candidate.id, { promotedBy: "reviewer", evidenceRefs: ["pr:12"], now: LATER });
}

async function setup() {
  const { root, work } = await skillFolders();
  const metadata = await promotedSkill(root, work);
  const record = join(root, ".kxm", "skills", "promoted", metadata.id);
  // The record folder holds metadata.json; the skill itself sits in a folder named after it.
  return { root, work, metadata, record, dir: join(record, metadata.name) };
}

describe("verifySkill", () => {
  it("passes an untouched promoted skill", async () => {
    const { root, metadata } = await setup();
    expect(await verifySkill(root, metadata.id)).toEqual({ id: metadata.id, ok: true, problems: [] });
  });

  it("fails a promoted SKILL.md edited after promotion, naming the file and never its content", async () => {
    const { root, metadata, dir } = await setup();
    await writeFile(join(dir, "SKILL.md"), skillMarkdown({}, "# Release notes\n\nAlso push a tag.\n"));
    const result = await verifySkill(root, metadata.id);
    expect(result).toEqual({
      id: metadata.id,
      ok: false,
      problems: [
        "SKILL.md: sha256 differs from metadata.json files",
        "SKILL.md: content hash differs from metadata.json contentSha256",
      ],
    });
    expect(result.problems.join(" ")).not.toContain("tag");
  });

  it("fails a line-ending-only change on the raw-bytes hash but not on the content hash", async () => {
    const { root, metadata, dir } = await setup();
    await writeFile(join(dir, "SKILL.md"), skillMarkdown().replace(/\n/g, "\r\n"));
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "SKILL.md: sha256 differs from metadata.json files",
    ]);
  });

  it("fails an added file", async () => {
    const { root, metadata, dir } = await setup();
    await writeFiles(dir, { "scripts/extra.sh": "rm -rf /\n" });
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "scripts/extra.sh: is not listed in metadata.json files",
    ]);
  });

  it("fails a deleted file", async () => {
    const { root, metadata, dir } = await setup();
    await rm(join(dir, "references", "labels.md"));
    expect((await verifySkill(root, metadata.id)).problems).toEqual(["references/labels.md: is missing"]);
  });

  it("fails a file replaced by a symbolic link", async () => {
    const { root, metadata, dir } = await setup();
    await rm(join(dir, "references", "labels.md"));
    await symlink("/etc/hostname", join(dir, "references", "labels.md"));
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "references/labels.md: is a symbolic link",
    ]);
  });

  it("fails metadata edited to match a changed SKILL.md when the id no longer matches", async () => {
    const { root, metadata, dir, record } = await setup();
    const changed = skillMarkdown({}, "# Release notes\n\nAlso push a tag.\n");
    await writeFile(join(dir, "SKILL.md"), changed);
    const forged = {
      ...metadata,
      contentSha256: skillContentSha256(changed),
      files: { ...metadata.files, "SKILL.md": sha256(changed) },
    };
    await writeFile(join(record, "metadata.json"), serializeSkillMetadata(forged));
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "metadata.json id: does not match skillId(name, contentSha256)",
    ]);
  });

  it("fails a description edited in metadata.json only, since the item summary comes from it", async () => {
    const { root, metadata, record } = await setup();
    await writeFile(
      join(record, "metadata.json"),
      serializeSkillMetadata({ ...metadata, description: "Run anything" }),
    );
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "metadata.json description: differs from SKILL.md",
    ]);
  });

  it("fails a hand-made promoted skill whose front matter grants tools, even with consistent hashes", async () => {
    const root = await tempDir();
    const text = skillMarkdown({ "allowed-tools": "Bash" });
    const contentSha256 = skillContentSha256(text);
    const id = skillId("release-notes", contentSha256);
    const metadata: SkillMetadata = {
      schema: "kxm.skill.v1",
      id,
      name: "release-notes",
      description: "Draft release notes from merged pull requests",
      contentSha256,
      files: { "SKILL.md": sha256(text) },
      status: "promoted",
      proposedBy: "a",
      proposedAt: NOW.toISOString(),
      promotedBy: "b",
      promotedAt: LATER.toISOString(),
      evidenceRefs: ["pr:1"],
    };
    await writeFiles(join(root, ".kxm", "skills", "promoted", id), {
      "SKILL.md": text,
      "metadata.json": serializeSkillMetadata(metadata),
    });
    expect((await verifySkill(root, id)).problems).toEqual([
      'skills (SKILL.md) may not carry the control-plane field "allowed-tools"',
    ]);
  });

  it("fails a metadata.json that does not parse or belongs to another status", async () => {
    const { root, metadata, record } = await setup();
    await writeFile(
      join(record, "metadata.json"),
      serializeSkillMetadata({
        ...metadata,
        status: "proposed",
        promotedBy: undefined,
        promotedAt: undefined,
        evidenceRefs: undefined,
      }),
    );
    expect((await verifySkill(root, metadata.id)).problems).toEqual([
      "metadata.json status: is proposed, not promoted",
    ]);
    await writeFile(join(record, "metadata.json"), "{");
    expect((await verifySkill(root, metadata.id)).problems).toEqual(["metadata.json: is not valid JSON"]);
  });

  it("refuses an unknown or malformed id with skill_not_found", async () => {
    const { root } = await setup();
    await expectKxmRejection(verifySkill(root, "nope.0123456789ab"), "skill_not_found");
    await expectKxmRejection(verifySkill(root, "../../etc/passwd"), "skill_not_found");
  });

  it("never changes the tree", async () => {
    const { root, metadata, dir } = await setup();
    await writeFiles(dir, { "extra.txt": "x" });
    const before = await snapshot(root);
    await verifySkill(root, metadata.id);
    await verifyPromotedSkills(root);
    await loadPromotedSkillItems(root, "demo");
    expect(await snapshot(root)).toEqual(before);
  });
});

describe("verifyPromotedSkills", () => {
  it("verifies every promoted skill by id and reports broken entries instead of throwing", async () => {
    const { root, work, metadata, dir } = await setup();
    const other = await promotedSkill(root, work, "alpha-skill");
    await writeFile(join(dir, "SKILL.md"), "tampered");
    const promoted = join(root, ".kxm", "skills", "promoted");
    await writeFile(join(promoted, "stray.txt"), "x");
    await mkdir(join(promoted, "empty.0123456789ab"));
    await mkdir(join(promoted, ".tmp-left-over"));
    expect(await verifyPromotedSkills(root)).toEqual([
      { id: other.id, ok: true, problems: [] },
      { id: "empty.0123456789ab", ok: false, problems: ["metadata.json: is missing"] },
      {
        id: metadata.id,
        ok: false,
        problems: [
          "SKILL.md: sha256 differs from metadata.json files",
          "SKILL.md: content hash differs from metadata.json contentSha256",
          "SKILL.md front matter: missing; SKILL.md must start with a --- YAML block ---",
        ],
      },
      { id: "stray.txt", ok: false, problems: ["stray.txt: is not a skill folder"] },
    ]);
  });

  it("is empty without promoted skills", async () => {
    expect(await verifyPromotedSkills(await tempDir())).toEqual([]);
  });
});

describe("skillToContextItem", () => {
  it("maps a promoted skill to a verified instruction item and keeps the 64-hex digest", async () => {
    const { metadata } = await setup();
    const item = skillToContextItem(metadata, "demo");
    expect(item).toEqual({
      id: `skill_${metadata.id}`,
      kind: "skill",
      project: "demo",
      summary: "release-notes: Draft release notes from merged pull requests",
      provenance: { sourceType: "git", sourceRef: `skill:${metadata.id}@${metadata.contentSha256}` },
      authority: "instruction",
      confidence: "verified",
    });
    // The same digest on its own is a bare 64-hex string, which redaction removes: only the skill form keeps it.
    expect(redactSecrets(metadata.contentSha256)).toBe("[redacted]");
    expect(item.provenance.sourceRef).toMatch(/@[0-9a-f]{64}$/);
  });

  it("keeps a proposed or rejected skill's status, so it is never live", async () => {
    const { metadata } = await setup();
    expect(skillToContextItem({ ...metadata, status: "proposed" }, "demo").status).toBe("proposed");
    expect(skillToContextItem({ ...metadata, status: "rejected" }, "demo").status).toBe("rejected");
  });
});

describe("loadPromotedSkillItems", () => {
  it("turns verified skills into items by id and never a tampered one", async () => {
    const { root, work, metadata, dir } = await setup();
    const good = await promotedSkill(root, work, "alpha-skill");
    await writeFile(
      join(dir, "SKILL.md"),
      (await readFile(join(dir, "SKILL.md"), "utf8")).replace("CHANGELOG", "NEWS"),
    );
    const loaded = await loadPromotedSkillItems(root, "demo");
    expect(loaded).toEqual({ items: [skillToContextItem(good, "demo")], unverified: [metadata.id] });
  });

  it("loads nothing from candidates", async () => {
    const { root, work } = await skillFolders();
    await proposeSkill(root, await skillSource(work), { proposedBy: "a", now: NOW });
    expect(await loadPromotedSkillItems(root, "demo")).toEqual({ items: [], unverified: [] });
  });

  it("refuses an invalid project instead of marking every skill unverified", async () => {
    const { root } = await setup();
    await expectKxmRejection(loadPromotedSkillItems(root, "bad project"), "invalid_request");
  });
});
