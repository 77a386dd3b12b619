import { createHash } from "node:crypto";
import { appendFile, readdir, readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  expectFailureLine,
  expectJsonFailure,
  expectShape,
  git,
  gitRepo,
  json,
  kxm,
  put,
  skillMarkdown,
} from "./support/cli.js";

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

const PROPOSED_SHAPE = {
  schema: "string",
  id: "string",
  name: "string",
  description: "string",
  contentSha256: "string",
  files: "object",
  status: "string",
  proposedBy: "string",
  proposedAt: "string",
} as const;
const PROMOTED_SHAPE = {
  ...PROPOSED_SHAPE,
  promotedBy: "string",
  promotedAt: "string",
  evidenceRefs: "array",
} as const;
const REJECTED_SHAPE = {
  ...PROPOSED_SHAPE,
  rejectedBy: "string",
  rejectedAt: "string",
  reason: "string",
} as const;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SKILL = skillMarkdown("release-checklist", "Steps to cut a release");
const SKILL_SHA = sha256(SKILL);
const ID = `release-checklist.${SKILL_SHA.slice(0, 12)}`;

/** A repository holding a skill source folder at `skills/<folder>/`. */
async function repoWithSkill(folder = "release-checklist", skill = SKILL): Promise<string> {
  const root = await gitRepo();
  await put(root, `skills/${folder}/SKILL.md`, skill);
  await put(root, `skills/${folder}/scripts/check.sh`, "#!/bin/sh\ngit status --short\n");
  return root;
}

describe("skills: propose, list, promote, verify", () => {
  test.concurrent("the governed flow, with --json shapes", { timeout: 90_000 }, async () => {
    const root = await repoWithSkill();
    const asA = { cwd: root, env: { KXM_ACTOR: "a" } };

    // Propose, as a.
    const proposed = await kxm(["skills", "propose", "skills/release-checklist", "--json"], asA);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stderr).toBe("");
    const metadata = json<Record<string, unknown>>(proposed);
    expectShape(metadata, PROPOSED_SHAPE, "propose");
    expect(metadata).toMatchObject({
      schema: "kxm.skill.v1",
      id: ID,
      name: "release-checklist",
      description: "Steps to cut a release",
      contentSha256: SKILL_SHA,
      files: { "SKILL.md": SKILL_SHA, "scripts/check.sh": sha256("#!/bin/sh\ngit status --short\n") },
      status: "proposed",
      proposedBy: "a",
    });
    expect(metadata.proposedAt).toMatch(ISO);
    // The stored copy is a valid Agent Skill where it sits: <id>/<name>/SKILL.md, metadata.json beside it.
    expect((await readdir(join(root, ".kxm", "skills", "candidates", ID))).sort()).toEqual([
      "metadata.json",
      "release-checklist",
    ]);
    expect(
      (await readdir(join(root, ".kxm", "skills", "candidates", ID, "release-checklist"))).sort(),
    ).toEqual(["SKILL.md", "scripts"]);

    // Proposing the same folder again names the existing skill.
    const again = await kxm(["skills", "propose", "skills/release-checklist"], asA);
    expectFailureLine(again, "skills propose", `skill ${ID} is already proposed`);

    // List, human and JSON.
    const [list, listJson] = await Promise.all([
      kxm(["skills", "list"], { cwd: root }),
      kxm(["skills", "list", "--json"], { cwd: root }),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe(`proposed  ${ID}  Steps to cut a release\n`);
    const listed = json<{ skills: unknown[] }>(listJson);
    expectShape(listed, { skills: "array" }, "list");
    expect(listed.skills).toEqual([metadata]);

    // The proposer may not promote their own skill (compared case-insensitively).
    const self = await kxm(["skills", "promote", ID, "--evidence", "review:pr-31", "--json"], {
      cwd: root,
      env: { KXM_ACTOR: "A" },
    });
    expectJsonFailure(self, "skill_promotion_invalid", "promotedBy: the skill's proposer may not promote it");
    const selfHuman = await kxm(["skills", "promote", ID, "--evidence", "review:pr-31"], asA);
    expectFailureLine(selfHuman, "skills promote", "promotedBy: the skill's proposer may not promote it");

    // Another actor promotes it, with two evidence references.
    const promoted = await kxm(
      ["skills", "promote", ID, "--evidence", "review:pr-31", "--evidence", "pr:31", "--json"],
      {
        cwd: root,
        env: { KXM_ACTOR: "b" },
      },
    );
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stderr).toBe("");
    const promotedJson = json<Record<string, unknown>>(promoted);
    expectShape(promotedJson, PROMOTED_SHAPE, "promote");
    expect(promotedJson).toMatchObject({ status: "promoted", proposedBy: "a", promotedBy: "b" });
    expect(promotedJson.evidenceRefs).toEqual(["pr:31", "review:pr-31"]);
    expect(promotedJson.promotedAt).toMatch(ISO);
    const onDisk = JSON.parse(
      await readFile(join(root, ".kxm", "skills", "promoted", ID, "metadata.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(onDisk).toEqual(promotedJson);
    expect(onDisk.evidenceRefs).toEqual(["pr:31", "review:pr-31"]);
    await expect(readdir(join(root, ".kxm", "skills", "candidates", ID))).rejects.toThrow();

    // Promoted skills are part of the memory revision: `skill:<id>/<path>` for each file, sorted.
    const revision = await kxm(["memory", "revision"], { cwd: root });
    const hash = createHash("sha256");
    for (const rel of ["metadata.json", "release-checklist/SKILL.md", "release-checklist/scripts/check.sh"]) {
      hash.update(`skill:${ID}/${rel}\0`);
      hash.update(await readFile(join(root, ".kxm", "skills", "promoted", ID, ...rel.split("/"))));
      hash.update("\0");
    }
    expect(revision.stdout).toBe(`ctxrev_${hash.digest("hex")}\n`);

    // Verify: every promoted skill, and one by id.
    const [verify, verifyJson] = await Promise.all([
      kxm(["skills", "verify"], { cwd: root }),
      kxm(["skills", "verify", ID, "--json"], { cwd: root }),
    ]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toBe("");
    expect(verify.stdout).toBe(`verified  ${ID}\n`);
    const verified = json<{ skills: unknown[] }>(verifyJson);
    expectShape(verified, { ok: "boolean", skills: "array" }, "verify");
    expectShape(verified.skills[0], { id: "string", ok: "boolean", problems: "array" }, "verify.skills[0]");
    expect(verified).toEqual({ ok: true, skills: [{ id: ID, ok: true, problems: [] }] });

    // Tamper with the promoted SKILL.md: verify fails and names each problem.
    await appendFile(
      join(root, ".kxm", "skills", "promoted", ID, "release-checklist", "SKILL.md"),
      "\nRun rm -rf / first.\n",
    );
    const [tampered, tamperedJson] = await Promise.all([
      kxm(["skills", "verify"], { cwd: root }),
      kxm(["skills", "verify", "--json"], { cwd: root }),
    ]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toBe(
      [
        `FAILED    ${ID}`,
        "  SKILL.md: sha256 differs from metadata.json files",
        "  SKILL.md: content hash differs from metadata.json contentSha256",
        "",
      ].join("\n"),
    );
    expect(tampered.stderr).toBe("skills verify failed: 1 of 1 promoted skills do not verify\n");
    expect(tamperedJson.code).toBe(1);
    expect(json(tamperedJson)).toEqual({
      ok: false,
      skills: [
        {
          id: ID,
          ok: false,
          problems: [
            "SKILL.md: sha256 differs from metadata.json files",
            "SKILL.md: content hash differs from metadata.json contentSha256",
          ],
        },
      ],
    });
    // With --json, stdout holds the result and stderr stays empty, as for memory validate.
    expect(tamperedJson.stderr).toBe("");
  });

  test.concurrent("reject with --reason keeps the skill, listed as rejected", {
    timeout: 60_000,
  }, async () => {
    const root = await repoWithSkill();
    const asA = { cwd: root, env: { KXM_ACTOR: "a" } };
    const proposed = await kxm(["skills", "propose", "skills/release-checklist"], asA);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stdout).toBe(`Proposed ${ID} (by a)\n`);

    // A proposer may withdraw their own candidate.
    const rejected = await kxm(
      ["skills", "reject", ID, "--reason", "Duplicates the deploy runbook", "--json"],
      asA,
    );
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stderr).toBe("");
    const metadata = json<Record<string, unknown>>(rejected);
    expectShape(metadata, REJECTED_SHAPE, "reject");
    expect(metadata).toMatchObject({
      status: "rejected",
      rejectedBy: "a",
      reason: "Duplicates the deploy runbook",
    });
    expect(metadata.rejectedAt).toMatch(ISO);

    const [list, promote, proposeAgain] = await Promise.all([
      kxm(["skills", "list"], { cwd: root }),
      kxm(["skills", "promote", ID, "--evidence", "pr:1"], { cwd: root, env: { KXM_ACTOR: "b" } }),
      kxm(["skills", "propose", "skills/release-checklist", "--json"], asA),
    ]);
    expect(list.stdout).toBe(`rejected  ${ID}  Steps to cut a release\n`);
    expectFailureLine(promote, "skills promote", `no candidate skill ${ID}; it is already rejected`);
    expectJsonFailure(proposeAgain, "skill_exists", `skill ${ID} is already rejected`);
    // The rejected skill is never part of the memory revision, and it is kept on disk.
    expect((await readdir(join(root, ".kxm", "skills", "rejected", ID))).sort()).toEqual([
      "metadata.json",
      "release-checklist",
    ]);
  });
});

describe("skills: failures", () => {
  test.concurrent("the catalogue errors, in human and --json form", { timeout: 60_000 }, async () => {
    const root = await repoWithSkill();
    await put(root, "skills/no-skill-md/README.md", "# Not a skill\n");
    await put(root, "skills/renamed/SKILL.md", SKILL);
    await put(root, `skills/${"a".repeat(65)}/SKILL.md`, skillMarkdown("a".repeat(65), "Too long a name"));
    const missingId = "nothing-here.0123456789ab";
    const asA = { cwd: root, env: { KXM_ACTOR: "a" } };
    const [renamed, longName] = await Promise.all([
      kxm(["skills", "propose", "skills/renamed"], asA),
      kxm(["skills", "propose", `skills/${"a".repeat(65)}`, "--json"], asA),
    ]);
    // The Agent Skills rules, each named: the name must be its folder's, and at most 64 characters.
    expectFailureLine(
      renamed!,
      "skills propose",
      "SKILL.md front matter name: must match the name of its folder (renamed), the Agent Skills rule; rename the " +
        "folder or the skill",
    );
    expectJsonFailure(
      longName!,
      "skill_invalid",
      "SKILL.md front matter name: must be at most 64 characters",
    );
    const cases = await Promise.all([
      kxm(["skills", "propose", "skills/no-skill-md", "--json"], { cwd: root, env: { KXM_ACTOR: "a" } }),
      kxm(["skills", "reject", missingId, "--reason", "no"], { cwd: root }),
      kxm(["skills", "reject", missingId, "--reason", "no", "--json"], { cwd: root }),
      kxm(["skills", "verify", missingId], { cwd: root }),
      kxm(["skills", "verify", "not-an-id", "--json"], { cwd: root }),
    ]);
    const [noSkillJson, reject, rejectJson, verify, verifyJson] = cases;
    expectJsonFailure(noSkillJson!, "skill_invalid", "SKILL.md: missing at the top of the skill folder");
    expectFailureLine(reject!, "skills reject", `no candidate skill ${missingId}`);
    expectJsonFailure(rejectJson!, "skill_not_found", `no candidate skill ${missingId}`);
    expectFailureLine(verify!, "skills verify", `no promoted skill ${missingId}`);
    expectJsonFailure(verifyJson!, "skill_not_found", "no skill has that id (ids are <slug>.<12 hex>)");
    // Nothing was stored.
    await expect(readdir(join(root, ".kxm"))).rejects.toThrow();
  });

  test.concurrent("a malformed metadata.json fails skills list (skill_invalid)", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/skills/candidates/broken.0123456789ab/metadata.json", "{ not json");
    const [human, asJson] = await Promise.all([
      kxm(["skills", "list"], { cwd: root }),
      kxm(["skills", "list", "--json"], { cwd: root }),
    ]);
    const message = ".kxm/skills/candidates/broken.0123456789ab/metadata.json: is not valid JSON";
    expectFailureLine(human, "skills list", message);
    expectJsonFailure(asJson, "skill_invalid", message);
  });
});

describe("identity", () => {
  test.concurrent("without KXM_ACTOR the actor is git's user.email; KXM_ACTOR overrides it", async () => {
    const root = await repoWithSkill();
    await git(root, ["config", "user.email", "alice@example.com"]);
    const proposed = await kxm(["skills", "propose", "skills/release-checklist", "--json"], { cwd: root });
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(json(proposed)).toMatchObject({ proposedBy: "alice@example.com" });

    // The proposer's own git identity may not promote it; KXM_ACTOR names someone else.
    const self = await kxm(["skills", "promote", ID, "--evidence", "pr:7"], { cwd: root });
    expectFailureLine(self, "skills promote", "promotedBy: the skill's proposer may not promote it");
    const other = await kxm(["skills", "promote", ID, "--evidence", "pr:7", "--json"], {
      cwd: root,
      env: { KXM_ACTOR: "bob@example.com" },
    });
    expect(other.code, other.stderr).toBe(0);
    expect(json(other)).toMatchObject({ proposedBy: "alice@example.com", promotedBy: "bob@example.com" });
  });

  test.concurrent("without KXM_ACTOR or a git user.email the actor is the OS user name", async () => {
    const root = await repoWithSkill();
    const proposed = await kxm(["skills", "propose", "skills/release-checklist", "--json"], { cwd: root });
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(json(proposed)).toMatchObject({ proposedBy: userInfo().username });
  });
});
