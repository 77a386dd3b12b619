import { chmod, cp, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ErrorCode } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import { writeSkillFolder } from "../src/skills/folder.js";
import { serializeSkillMetadata } from "../src/skills/metadata.js";
import { normalizeSkillMarkdown, skillContentSha256 } from "../src/skills/skill-file.js";
import {
  listSkills,
  promoteSkill,
  proposeSkill,
  rejectSkill,
  type SkillMetadata,
  verifySkill,
} from "../src/skills/store.js";
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

const SECRET = `ghp_${"a1B2".repeat(9)}`;
const SKILL = skillMarkdown();
const CONTENT_SHA = sha256(SKILL);
const ID = `release-notes.${CONTENT_SHA.slice(0, 12)}`;

async function setup() {
  const { root, work } = await skillFolders();
  return { root, work, source: await skillSource(work) };
}

/** Proposes `source` as agent "a" and expects the refusal `code`: the error. */
function refusedProposal(root: string, source: string, code: ErrorCode = "skill_invalid") {
  return expectKxmRejection(proposeSkill(root, source, { proposedBy: "a", now: NOW }), code);
}

async function proposed(root: string, work: string, skill = SKILL) {
  return proposeSkill(root, await skillSource(work, { skill }), { proposedBy: "agent-7", now: NOW });
}

describe("proposeSkill", () => {
  it("copies the folder into candidates/<id>/ with an exact metadata.json", async () => {
    const { root, source } = await setup();
    await chmod(join(source, "scripts", "collect.sh"), 0o755);
    const metadata = await proposeSkill(root, source, { proposedBy: "  agent-7 ", now: NOW });
    expect(metadata).toEqual({
      schema: "kxm.skill.v1",
      id: ID,
      name: "release-notes",
      description: "Draft release notes from merged pull requests",
      contentSha256: CONTENT_SHA,
      files: {
        "SKILL.md": sha256(SKILL),
        "references/labels.md": sha256("feature, fix, chore\n"),
        "scripts/collect.sh": sha256("#!/bin/sh\ngit log --merges --oneline\n"),
      },
      status: "proposed",
      proposedBy: "agent-7",
      proposedAt: "2026-03-01T10:00:00.000Z",
    });
    const record = join(root, ".kxm", "skills", "candidates", ID);
    const dir = join(record, "release-notes");
    expect(await readFile(join(record, "metadata.json"), "utf8")).toBe(serializeSkillMetadata(metadata));
    expect(await readFile(join(dir, "SKILL.md"), "utf8")).toBe(SKILL);
    expect(((await stat(join(dir, "scripts", "collect.sh"))).mode & 0o111) !== 0).toBe(true);
    expect(((await stat(join(dir, "references", "labels.md"))).mode & 0o111) === 0).toBe(true);
    // The stored copy is a valid Agent Skill where it sits: SKILL.md's name is its parent folder's name.
    expect(await snapshot(join(root, ".kxm", "skills"))).toEqual([
      `.gitattributes ${sha256(await readFile(join(root, ".kxm", "skills", ".gitattributes")))}`,
      "candidates/",
      `candidates/${ID}/`,
      `candidates/${ID}/metadata.json ${sha256(serializeSkillMetadata(metadata))}`,
      `candidates/${ID}/release-notes/`,
      `candidates/${ID}/release-notes/SKILL.md ${sha256(SKILL)}`,
      `candidates/${ID}/release-notes/references/`,
      `candidates/${ID}/release-notes/references/labels.md ${sha256("feature, fix, chore\n")}`,
      `candidates/${ID}/release-notes/scripts/`,
      `candidates/${ID}/release-notes/scripts/collect.sh ${sha256("#!/bin/sh\ngit log --merges --oneline\n")}`,
    ]);
  });

  it("writes metadata.json with keys in a fixed order, two-space indent and a trailing newline", async () => {
    const { root, work } = await setup();
    const metadata = await proposed(root, work);
    const text = await readFile(join(root, ".kxm", "skills", "candidates", ID, "metadata.json"), "utf8");
    expect(Object.keys(JSON.parse(text))).toEqual([
      "schema",
      "id",
      "name",
      "description",
      "contentSha256",
      "files",
      "status",
      "proposedBy",
      "proposedAt",
    ]);
    expect(text).toBe(`${JSON.stringify(metadata, null, 2)}\n`);
  });

  it("tells Git not to convert line endings under .kxm/skills, and keeps an existing .gitattributes", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    const attributes = join(root, ".kxm", "skills", ".gitattributes");
    expect(await readFile(attributes, "utf8")).toMatch(/^\* -text$/m);
    await writeFile(attributes, "# mine\n");
    await proposed(root, work, skillMarkdown({ name: "other" }));
    expect(await readFile(attributes, "utf8")).toBe("# mine\n");
  });

  it("skips .git and keeps dot files", async () => {
    const { root, work } = await setup();
    const source = await skillSource(work, {
      files: { ".git/HEAD": "ref: x\n", ".editorconfig": "root = true\n" },
    });
    const metadata = await proposeSkill(root, source, { proposedBy: "a", now: NOW });
    expect(Object.keys(metadata.files)).toEqual([
      ".editorconfig",
      "SKILL.md",
      "references/labels.md",
      "scripts/collect.sh",
    ]);
  });

  it("gives a CRLF copy of the same SKILL.md the same id, so it is refused as existing", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    const windows = await skillSource(work, { skill: `\uFEFF${SKILL.replace(/\n/g, "\r\n")}` });
    const error = await expectKxmRejection(
      proposeSkill(root, windows, { proposedBy: "b", now: NOW }),
      "skill_exists",
    );
    expect(error.status).toBe(409);
    expect(skillContentSha256(normalizeSkillMarkdown(SKILL))).toBe(CONTENT_SHA);
  });

  it("refuses an id that is already promoted or rejected", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    await promoteSkill(root, ID, { promotedBy: "reviewer", evidenceRefs: ["pr:1"], now: LATER });
    await expectKxmRejection(proposed(root, work), "skill_exists");
    await proposed(root, work, skillMarkdown({ name: "other" }));
    const other = (await listSkills(root)).find((skill) => skill.name === "other")!;
    await rejectSkill(root, other.id, { rejectedBy: "reviewer", reason: "duplicate", now: LATER });
    await expectKxmRejection(proposed(root, work, skillMarkdown({ name: "other" })), "skill_exists");
  });
});

describe("proposeSkill refusals leave the project unchanged", () => {
  const cases: Array<[string, Record<string, string | Uint8Array>, string, string]> = [
    ["a bad name", { "SKILL.md": skillMarkdown({ name: "Release_Notes" }) }, "skill_invalid", "name"],
    [
      "a missing description",
      { "SKILL.md": "---\nname: a\n---\n" },
      "skill_invalid",
      "description: is required",
    ],
    [
      "a control-plane key",
      { "SKILL.md": skillMarkdown({ tools: "[Bash]" }) },
      "context_authority_violation",
      '"tools"',
    ],
    [
      "allowed-tools",
      { "SKILL.md": skillMarkdown({ "allowed-tools": "Bash(git:*)" }) },
      "context_authority_violation",
      '"allowed-tools"',
    ],
    [
      "a secret",
      { "SKILL.md": skillMarkdown({}, `# Notes\n\nUse ${SECRET} to call the API.\n`) },
      "skill_invalid",
      "SKILL.md line 8",
    ],
    [
      "invalid UTF-8",
      { "SKILL.md": new Uint8Array([0x2d, 0x2d, 0x2d, 0xff, 0xfe]) },
      "skill_invalid",
      "not valid UTF-8",
    ],
    [
      "a file over 1 MiB",
      { "big.bin": new Uint8Array(1024 * 1024 + 1) },
      "skill_invalid",
      "big.bin: is over 1048576 bytes",
    ],
    ["a metadata.json of its own", { "metadata.json": "{}" }, "skill_invalid", "metadata.json: is reserved"],
    ["a backslash in a file name", { "a\\b.md": "x" }, "skill_invalid", "backslash"],
  ];

  it.each(cases)("refuses %s", async (_, files, code, rule) => {
    const { root, work } = await setup();
    await proposed(root, work, skillMarkdown({ name: "existing" }));
    const before = await snapshot(root);
    const source = await skillSource(work, { files });
    const error = await refusedProposal(root, source, code as never);
    expect(error.message).toContain(rule);
    expect(error.message).not.toContain(SECRET);
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses a folder without SKILL.md", async () => {
    const { root, work } = await setup();
    const source = await skillSource(work);
    await rm(join(source, "SKILL.md"));
    const error = await refusedProposal(root, source);
    expect(error.message).toBe("SKILL.md: missing at the top of the skill folder");
    expect(await snapshot(root)).toEqual([]);
  });

  it("refuses a symbolic link, to a file or to a folder", async () => {
    const { root, work, source } = await setup();
    await symlink("/etc/passwd", join(source, "references", "passwd"));
    const error = await refusedProposal(root, source);
    expect(error.message).toBe("references/passwd: is a symbolic link; a skill holds regular files only");
    const other = await skillSource(work);
    await symlink(work, join(other, "linked"));
    await expectKxmRejection(proposeSkill(root, other, { proposedBy: "a", now: NOW }), "skill_invalid");
    expect(await snapshot(root)).toEqual([]);
  });

  it("refuses more than 10 MiB in all", async () => {
    const { root, work } = await setup();
    const files: Record<string, Uint8Array> = {};
    for (let index = 0; index < 11; index++) files[`assets/${index}.bin`] = new Uint8Array(1024 * 1024);
    const source = await skillSource(work, { files });
    const error = await refusedProposal(root, source);
    expect(error.message).toBe("skill folder: over 10485760 bytes in all");
    expect(await snapshot(root)).toEqual([]);
  });

  it("refuses a source that is not a folder, an empty proposer and an invalid date", async () => {
    const { root, work, source } = await setup();
    await refusedProposal(root, join(work, "nope"));
    await refusedProposal(root, join(source, "SKILL.md"));
    await expectKxmRejection(proposeSkill(root, source, { proposedBy: "  ", now: NOW }), "invalid_request");
    await expectKxmRejection(proposeSkill(root, source, { proposedBy: "a\nb", now: NOW }), "invalid_request");
    await expectKxmRejection(
      proposeSkill(root, source, { proposedBy: "a", now: new Date(Number.NaN) }),
      "invalid_request",
    );
    expect(await snapshot(root)).toEqual([]);
  });

  it("names the secret's line, never the secret", async () => {
    const { root, work } = await setup();
    const source = await skillSource(work, { skill: skillMarkdown({ description: `Uses ${SECRET}` }) });
    const error = await refusedProposal(root, source);
    expect(error.message).toBe("SKILL.md line 3: holds what looks like a secret; remove it before proposing");
  });
});

describe("promoteSkill", () => {
  it("moves a verified candidate to promoted/<id>/ with exact metadata", async () => {
    const { root, work } = await setup();
    const candidate = await proposed(root, work);
    const metadata = await promoteSkill(root, ID, {
      promotedBy: " reviewer ",
      evidenceRefs: ["review:pr-12", " pr:12 "],
      now: LATER,
    });
    expect(metadata).toEqual({
      ...candidate,
      status: "promoted",
      promotedBy: "reviewer",
      promotedAt: "2026-03-02T11:30:00.000Z",
      evidenceRefs: ["pr:12", "review:pr-12"],
    });
    const promotedDir = join(root, ".kxm", "skills", "promoted", ID);
    expect(await readFile(join(promotedDir, "metadata.json"), "utf8")).toBe(serializeSkillMetadata(metadata));
    expect(Object.keys(JSON.parse(await readFile(join(promotedDir, "metadata.json"), "utf8")))).toEqual([
      "schema",
      "id",
      "name",
      "description",
      "contentSha256",
      "files",
      "status",
      "proposedBy",
      "proposedAt",
      "promotedBy",
      "promotedAt",
      "evidenceRefs",
    ]);
    expect(
      (await snapshot(join(root, ".kxm", "skills"))).filter((line) => line.startsWith("candidates/")),
    ).toEqual(["candidates/"]);
    expect(await verifySkill(root, ID)).toEqual({ id: ID, ok: true, problems: [] });
    expect(await listSkills(root)).toEqual([metadata]);
  });

  it("accepts exactly 32 evidence references", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    const refs = Array.from({ length: 32 }, (_, index) => `pr:${index}`);
    expect(
      (await promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: refs, now: LATER })).evidenceRefs,
    ).toHaveLength(32);
  });

  const refusals: Array<[string, { promotedBy: string; evidenceRefs: string[] }, string, string]> = [
    [
      "self-promotion",
      { promotedBy: "agent-7", evidenceRefs: ["pr:1"] },
      "skill_promotion_invalid",
      "proposer",
    ],
    [
      "self-promotion in other case",
      { promotedBy: " AGENT-7", evidenceRefs: ["pr:1"] },
      "skill_promotion_invalid",
      "proposer",
    ],
    ["no evidence", { promotedBy: "r", evidenceRefs: [] }, "skill_promotion_invalid", "at least one"],
    [
      "an empty reference",
      { promotedBy: "r", evidenceRefs: ["pr:1", "  "] },
      "skill_promotion_invalid",
      "must not be empty",
    ],
    [
      "a repeated reference",
      { promotedBy: "r", evidenceRefs: ["pr:1", "pr:1 "] },
      "skill_promotion_invalid",
      "repeat",
    ],
    [
      "33 references",
      { promotedBy: "r", evidenceRefs: Array.from({ length: 33 }, (_, index) => `pr:${index}`) },
      "skill_promotion_invalid",
      "at most 32",
    ],
    [
      "a 513-character reference",
      { promotedBy: "r", evidenceRefs: ["x".repeat(513)] },
      "skill_promotion_invalid",
      "512",
    ],
    [
      "an empty promoter",
      { promotedBy: " ", evidenceRefs: ["pr:1"] },
      "skill_promotion_invalid",
      "promotedBy",
    ],
  ];

  it.each(refusals)("refuses %s and changes nothing", async (_, options, code, rule) => {
    const { root, work } = await setup();
    await proposed(root, work);
    const before = await snapshot(root);
    const error = await expectKxmRejection(promoteSkill(root, ID, { ...options, now: LATER }), code as never);
    expect(error.status).toBe(403);
    expect(error.message).toContain(rule);
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses an unknown or malformed id with skill_not_found", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    const before = await snapshot(root);
    for (const id of ["nope.0123456789ab", "../../etc", `${ID}/..`, ""]) {
      const error = await expectKxmRejection(
        promoteSkill(root, id, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER }),
        "skill_not_found",
      );
      expect(error.status).toBe(404);
    }
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses a promoted id: no candidate is left", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    await promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER });
    const error = await expectKxmRejection(
      promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER }),
      "skill_not_found",
    );
    expect(error.message).toBe(`no candidate skill ${ID}; it is already promoted`);
  });

  it.each([
    [
      "SKILL.md edited",
      async (dir: string) =>
        writeFile(join(dir, "release-notes", "SKILL.md"), skillMarkdown({ description: "Other" })),
    ],
    ["a file added", async (dir: string) => writeFile(join(dir, "release-notes", "notes.txt"), "x")],
    ["a file deleted", async (dir: string) => rm(join(dir, "release-notes", "scripts", "collect.sh"))],
    ["metadata.json broken", async (dir: string) => writeFile(join(dir, "metadata.json"), "{")],
  ])("refuses a tampered candidate (%s) with skill_unverified", async (_, tamper) => {
    const { root, work } = await setup();
    await proposed(root, work);
    await tamper(join(root, ".kxm", "skills", "candidates", ID));
    const before = await snapshot(root);
    const error = await expectKxmRejection(
      promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER }),
      "skill_unverified",
    );
    expect(error.status).toBe(409);
    expect(error.message).toMatch(new RegExp(`^candidate skill ${ID.replace(".", "\\.")} does not verify: `));
    await expectKxmRejection(
      rejectSkill(root, ID, { rejectedBy: "r", reason: "no", now: LATER }),
      "skill_unverified",
    );
    expect(await snapshot(root)).toEqual(before);
  });

  it("tolerates a crash between the promoted copy and the candidate's removal", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    const candidateDir = join(root, ".kxm", "skills", "candidates", ID);
    const saved = join(work, "saved-candidate");
    await cp(candidateDir, saved, { recursive: true });
    const promoted = await promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER });
    await cp(saved, candidateDir, { recursive: true });
    expect(await listSkills(root)).toEqual([promoted]);
    await expectKxmRejection(
      promoteSkill(root, ID, { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER }),
      "skill_exists",
    );
    await expectKxmRejection(
      rejectSkill(root, ID, { rejectedBy: "r", reason: "late", now: LATER }),
      "skill_exists",
    );
    await expectKxmRejection(proposed(root, work), "skill_exists");
  });
});

describe("rejectSkill", () => {
  it("moves a candidate to rejected/<id>/ with a redacted reason, and keeps listing it", async () => {
    const { root, work } = await setup();
    const candidate = await proposed(root, work);
    const metadata = await rejectSkill(root, ID, {
      rejectedBy: "agent-7",
      reason: `  Duplicates the changelog skill; leaked ${SECRET} `,
      now: LATER,
    });
    expect(metadata).toEqual({
      ...candidate,
      status: "rejected",
      rejectedBy: "agent-7",
      rejectedAt: "2026-03-02T11:30:00.000Z",
      reason: "Duplicates the changelog skill; leaked [redacted]",
    });
    const dir = join(root, ".kxm", "skills", "rejected", ID);
    expect(await readFile(join(dir, "metadata.json"), "utf8")).toBe(serializeSkillMetadata(metadata));
    expect(await readFile(join(dir, "release-notes", "SKILL.md"), "utf8")).toBe(SKILL);
    expect(await listSkills(root)).toEqual([metadata]);
  });

  it.each([
    ["an empty reason", { rejectedBy: "r", reason: "   " }, "reason: must not be empty"],
    [
      "a 501-character reason",
      { rejectedBy: "r", reason: "x".repeat(501) },
      "reason: must be at most 500 characters",
    ],
    ["an empty rejecter", { rejectedBy: "", reason: "dup" }, "rejectedBy: must not be empty"],
  ])("refuses %s with invalid_request and changes nothing", async (_, options, message) => {
    const { root, work } = await setup();
    await proposed(root, work);
    const before = await snapshot(root);
    const error = await expectKxmRejection(
      rejectSkill(root, ID, { ...options, now: LATER }),
      "invalid_request",
    );
    expect(error.message).toBe(message);
    expect(await snapshot(root)).toEqual(before);
  });

  it("refuses an unknown id with skill_not_found", async () => {
    const { root } = await setup();
    await expectKxmRejection(
      rejectSkill(root, ID, { rejectedBy: "r", reason: "x", now: LATER }),
      "skill_not_found",
    );
    expect(await snapshot(root)).toEqual([]);
  });
});

describe("listSkills", () => {
  it("is empty without .kxm/skills", async () => {
    expect(await listSkills(await tempDir())).toEqual([]);
  });

  it("sorts by status (proposed, promoted, rejected), then id by code unit", async () => {
    const { root, work } = await setup();
    const names = ["zeta", "alpha", "beta", "gamma", "delta"];
    const made: SkillMetadata[] = [];
    for (const name of names) made.push(await proposed(root, work, skillMarkdown({ name })));
    const id = (name: string) => made.find((skill) => skill.name === name)!.id;
    await promoteSkill(root, id("zeta"), { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER });
    await promoteSkill(root, id("beta"), { promotedBy: "r", evidenceRefs: ["pr:1"], now: LATER });
    await rejectSkill(root, id("alpha"), { rejectedBy: "r", reason: "no", now: LATER });
    const listed = await listSkills(root);
    expect(listed.map((skill) => [skill.status, skill.name])).toEqual([
      ["proposed", "delta"],
      ["proposed", "gamma"],
      ["promoted", "beta"],
      ["promoted", "zeta"],
      ["rejected", "alpha"],
    ]);
  });

  it("skips dot-named entries such as a temporary folder or .gitkeep", async () => {
    const { root, work } = await setup();
    const metadata = await proposed(root, work);
    await writeFiles(join(root, ".kxm", "skills"), {
      "candidates/.tmp-x-123/SKILL.md": "half",
      "promoted/.gitkeep": "",
    });
    expect(await listSkills(root)).toEqual([metadata]);
  });

  it.each([
    ["metadata.json missing", "metadata.json: is missing"],
    ["metadata.json not JSON", "metadata.json: is not valid JSON"],
    ["a field missing", "metadata.json contentSha256:"],
    ["an unknown field", "metadata.json: holds a field kxm.skill.v1 does not know"],
    ["an id that is not the folder's", "metadata.json id: does not match the folder name"],
    ["promotion fields on a candidate", "metadata.json promotedBy: not allowed when status is proposed"],
    [
      "a files path leaving the folder",
      "metadata.json files: holds a path that is not a relative path inside the skill folder",
    ],
  ])("refuses %s with skill_invalid naming the folder", async (what, message) => {
    const { root, work } = await setup();
    const metadata = await proposed(root, work);
    const file = join(root, ".kxm", "skills", "candidates", ID, "metadata.json");
    const edits: Record<string, () => Promise<void>> = {
      "metadata.json missing": () => rm(file),
      "metadata.json not JSON": () => writeFile(file, "not json"),
      "a field missing": () => writeFile(file, JSON.stringify({ ...metadata, contentSha256: undefined })),
      "an unknown field": () => writeFile(file, JSON.stringify({ ...metadata, extra: 1 })),
      "an id that is not the folder's": () =>
        writeFile(file, JSON.stringify({ ...metadata, id: "other.0123456789ab" })),
      "promotion fields on a candidate": () =>
        writeFile(file, JSON.stringify({ ...metadata, promotedBy: "r" })),
      "a files path leaving the folder": () =>
        writeFile(file, JSON.stringify({ ...metadata, files: { "../x": CONTENT_SHA } })),
    };
    await edits[what]!();
    const error = await expectKxmRejection(listSkills(root), "skill_invalid");
    expect(error.message.startsWith(`.kxm/skills/candidates/${ID}/${message}`), error.message).toBe(true);
  });

  it("refuses a file where a skill folder belongs", async () => {
    const root = await tempDir();
    await mkdir(join(root, ".kxm", "skills", "promoted"), { recursive: true });
    await writeFile(join(root, ".kxm", "skills", "promoted", "README.md"), "x");
    const error = await expectKxmRejection(listSkills(root), "skill_invalid");
    expect(error.message).toBe(".kxm/skills/promoted/README.md: is not a skill folder");
  });
});

describe("writeSkillFolder", () => {
  const file = (path: string) => ({
    path,
    bytes: new TextEncoder().encode(path),
    sha256: sha256(path),
    executable: false,
  });

  it("removes its temporary folder when a write fails, leaving no half-made skill", async () => {
    const parent = join(await tempDir(), "candidates");
    await expect(
      writeSkillFolder(parent, "x.0123456789ab", "x", [file("a"), file("a/b")], "{}\n"),
    ).rejects.toThrow();
    expect(await snapshot(parent)).toEqual([]);
  });

  it("reports an existing target as skill_exists and leaves it as it was", async () => {
    const parent = join(await tempDir(), "candidates");
    await writeSkillFolder(parent, "x.0123456789ab", "x", [file("a")], "{}\n");
    const before = await snapshot(parent);
    await expectKxmRejection(
      writeSkillFolder(parent, "x.0123456789ab", "x", [file("b")], "{}\n"),
      "skill_exists",
    );
    expect(await snapshot(parent)).toEqual(before);
  });
});

describe("the stored layout: each copy is a valid Agent Skill where it sits", () => {
  it("refuses a SKILL.md whose name is not its folder's, naming the Agent Skills rule; writes nothing", async () => {
    const { root, work } = await setup();
    const source = await skillSource(work, { folder: "release-notes-draft" });
    const error = await expectKxmRejection(
      proposeSkill(root, source, { proposedBy: "agent-7", now: NOW }),
      "skill_invalid",
    );
    expect(error.message).toBe(
      "SKILL.md front matter name: must match the name of its folder (release-notes-draft), the Agent Skills " +
        "rule; rename the folder or the skill",
    );
    expect(await snapshot(root)).toEqual([]);
  });

  it("refuses a 65-character name by the name rule, not as a secret", async () => {
    const { root, work } = await setup();
    const name = `a${"b".repeat(63)}c`;
    const source = await skillSource(work, { skill: skillMarkdown({ name }) });
    const error = await expectKxmRejection(
      proposeSkill(root, source, { proposedBy: "agent-7", now: NOW }),
      "skill_invalid",
    );
    expect(error.message).toBe("SKILL.md front matter name: must be at most 64 characters");
  });

  it("still reads, verifies and promotes a record folder of the earlier layout (files beside metadata.json)", async () => {
    const { root, work } = await setup();
    const candidate = await proposed(root, work);
    const record = join(root, ".kxm", "skills", "candidates", ID);
    // The earlier layout: the skill's files directly in <id>/.
    await cp(join(record, "release-notes"), record, { recursive: true });
    await rm(join(record, "release-notes"), { recursive: true });
    expect(await listSkills(root)).toEqual([candidate]);
    const promoted = await promoteSkill(root, ID, {
      promotedBy: "reviewer",
      evidenceRefs: ["pr:1"],
      now: LATER,
    });
    const promotedRecord = join(root, ".kxm", "skills", "promoted", ID);
    // The move writes the new layout.
    expect(await readFile(join(promotedRecord, "release-notes", "SKILL.md"), "utf8")).toBe(SKILL);
    expect(await verifySkill(root, ID)).toEqual({ id: ID, ok: true, problems: [] });
    // A promoted copy in the earlier layout verifies too.
    await cp(join(promotedRecord, "release-notes"), promotedRecord, { recursive: true });
    await rm(join(promotedRecord, "release-notes"), { recursive: true });
    expect(await verifySkill(root, ID)).toEqual({ id: ID, ok: true, problems: [] });
    expect(await listSkills(root)).toEqual([promoted]);
  });

  it("fails a stored skill with a file outside its named folder, or its folder renamed", async () => {
    const { root, work } = await setup();
    await proposed(root, work);
    await promoteSkill(root, ID, { promotedBy: "reviewer", evidenceRefs: ["pr:1"], now: LATER });
    const record = join(root, ".kxm", "skills", "promoted", ID);
    await writeFile(join(record, "notes.txt"), "x");
    expect((await verifySkill(root, ID)).problems).toEqual([
      "notes.txt: is outside the skill's folder release-notes/",
    ]);
    await rm(join(record, "notes.txt"));
    await cp(join(record, "release-notes"), join(record, "release-notes-2"), { recursive: true });
    await rm(join(record, "release-notes"), { recursive: true });
    const problems = (await verifySkill(root, ID)).problems;
    expect(problems[0]).toBe("release-notes-2/SKILL.md: is outside the skill's folder release-notes/");
    expect(problems).toContain("SKILL.md: is missing");
  });
});
