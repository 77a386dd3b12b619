import type { Dirent } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { findSecretRanges } from "@kxm/provenance";
import { projectPath, writeFileWhole } from "../files.js";
import { skillsDir } from "../layout.js";
import {
  displayPath,
  isMissing,
  readRegularFile,
  readSkillSource,
  SKILL_FOLDER_LIMITS,
  writeSkillFolder,
} from "./folder.js";
import {
  METADATA_FILE,
  parseSkillMetadata,
  SKILL_SCHEMA,
  SKILL_STATUSES,
  type SkillMetadata,
  type SkillStatus,
  serializeSkillMetadata,
} from "./metadata.js";
import { checkActor, checkEvidenceRefs, checkNow, checkReason, sameActor } from "./options.js";
import { skillDir, statusDir } from "./paths.js";
import { normalizeSkillMarkdown, parseSkillMarkdown, skillContentSha256, skillId } from "./skill-file.js";
import { assertSkillId, decodeUtf8, inspectSkillFolder } from "./verify.js";

export type { SkillMetadata, SkillStatus } from "./metadata.js";
export { verifyPromotedSkills, verifySkill } from "./verify.js";

const SKILL_FILE = "SKILL.md";
/** The last segment of `KXM_PATHS.distilledSkills`, inside the candidates folder. */
const DISTILLED_FOLDER = "distilled";

// Stored skill files are hashed byte for byte. With `core.autocrlf` a Windows checkout would rewrite their line
// endings and no promoted skill would verify there, so Git is told to leave every file under .kxm/skills alone.
const GITATTRIBUTES =
  "# Written by KXM: skills are verified byte for byte, so Git must not convert line endings.\n* -text\n";

async function ensureGitAttributes(root: string): Promise<void> {
  const path = join(skillsDir(root), ".gitattributes");
  try {
    await lstat(path);
  } catch (error) {
    if (isMissing(error)) await writeFileWhole(path, GITATTRIBUTES);
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

async function assertNotStored(root: string, id: string, statuses: readonly SkillStatus[]): Promise<void> {
  for (const status of statuses) {
    if (await isDirectory(skillDir(root, status, id))) {
      throw new KxmError("skill_exists", `skill ${id} is already ${status}`);
    }
  }
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1))
    line++;
  return line;
}

function readSkillMarkdown(
  bytes: Uint8Array,
  folder: string,
): { text: string; name: string; description: string } {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new KxmError("skill_invalid", `${SKILL_FILE}: is not valid UTF-8`);
  // The Agent Skills rules come first, each named when it fails (a 65-character name is a name over 64
  // characters, not a secret); parse errors never carry a value.
  const { frontMatter } = parseSkillMarkdown(text, SKILL_FILE);
  if (frontMatter.name !== folder) {
    throw new KxmError(
      "skill_invalid",
      `${SKILL_FILE} front matter name: must match the name of its folder (${displayPath(folder).slice(0, 80)}), ` +
        "the Agent Skills rule; rename the folder or the skill",
    );
  }
  // Redacting would change the hash the id pins, so a secret is refused; the message names the line only.
  const normalised = normalizeSkillMarkdown(text);
  const secret = findSecretRanges(normalised)[0];
  if (secret !== undefined) {
    throw new KxmError(
      "skill_invalid",
      `${SKILL_FILE} line ${lineOf(normalised, secret[0])}: holds what looks like a secret; remove it before proposing`,
    );
  }
  return { text, name: frontMatter.name, description: frontMatter.description };
}

/**
 * Proposes the skill in `sourceDir`: its files are copied into `.kxm/skills/candidates/<id>/<name>/` beside a
 * metadata.json of status `proposed` in `<id>/`, all in one rename. Refused with `skill_invalid` for a missing or
 * malformed SKILL.md, a `name` that is not the source folder's name (the Agent Skills rule), a secret in it, a
 * link or special file, or a folder over its limits; 403 `context_authority_violation` for a control-plane field
 * in the front matter; `skill_exists` when the id is already a candidate, promoted or rejected. A refusal writes
 * nothing.
 */
export async function proposeSkill(
  root: string,
  sourceDir: string,
  options: { proposedBy: string; now: Date },
): Promise<SkillMetadata> {
  const proposedBy = checkActor(options.proposedBy, "proposedBy", "invalid_request");
  const proposedAt = checkNow(options.now);
  const files = await readSkillSource(sourceDir);
  const skillFile = files.find((file) => file.path === SKILL_FILE);
  if (skillFile === undefined)
    throw new KxmError("skill_invalid", `${SKILL_FILE}: missing at the top of the skill folder`);
  const { text, name, description } = readSkillMarkdown(skillFile.bytes, basename(resolve(sourceDir)));
  const contentSha256 = skillContentSha256(text);
  const id = skillId(name, contentSha256);
  await assertNotStored(root, id, SKILL_STATUSES);
  const metadata: SkillMetadata = {
    schema: SKILL_SCHEMA,
    id,
    name,
    description,
    contentSha256,
    files: Object.fromEntries(files.map((file) => [file.path, file.sha256])),
    status: "proposed",
    proposedBy,
    proposedAt,
  };
  await writeSkillFolder(statusDir(root, "proposed"), id, name, files, serializeSkillMetadata(metadata));
  await ensureGitAttributes(root);
  return metadata;
}

async function readListed(root: string, status: SkillStatus, entry: Dirent): Promise<SkillMetadata> {
  const dir = join(statusDir(root, status), entry.name);
  const where = projectPath(root, dir);
  if (!entry.isDirectory()) throw new KxmError("skill_invalid", `${where}: is not a skill folder`);
  const read = await readRegularFile(join(dir, METADATA_FILE), SKILL_FOLDER_LIMITS.fileBytes);
  if ("problem" in read) throw new KxmError("skill_invalid", `${where}/${METADATA_FILE}: ${read.problem}`);
  const parsed = parseSkillMetadata(new TextDecoder().decode(read.bytes));
  if ("problem" in parsed) throw new KxmError("skill_invalid", `${where}/${METADATA_FILE}${parsed.problem}`);
  if (parsed.metadata.id !== entry.name) {
    throw new KxmError("skill_invalid", `${where}/${METADATA_FILE} id: does not match the folder name`);
  }
  if (parsed.metadata.status !== status) {
    throw new KxmError(
      "skill_invalid",
      `${where}/${METADATA_FILE} status: is ${parsed.metadata.status}, not ${status}`,
    );
  }
  return parsed.metadata;
}

async function listStatus(root: string, status: SkillStatus): Promise<SkillMetadata[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(statusDir(root, status), { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const out: SkillMetadata[] = [];
  for (const entry of entries) {
    // Dot-named entries are temporary folders of an interrupted write, or `.gitkeep`; `distilled` is the
    // distillation pass's scratch folder (no skill id lacks a dot).
    if (entry.name.startsWith(".") || (status === "proposed" && entry.name === DISTILLED_FOLDER)) continue;
    out.push(await readListed(root, status, entry));
  }
  return out;
}

/**
 * Every stored skill from its metadata.json, sorted by status (proposed, promoted, rejected) then id by code
 * unit. Hashes are not checked here (see `verifySkill`). A candidate whose id is also promoted or rejected is
 * the leftover of an interrupted move and is not listed: the move had already landed. A malformed
 * metadata.json is `skill_invalid`, naming the folder.
 */
export async function listSkills(root: string): Promise<SkillMetadata[]> {
  const [proposed, promoted, rejected] = await Promise.all(
    SKILL_STATUSES.map((status) => listStatus(root, status)),
  );
  const moved = new Set([...(promoted ?? []), ...(rejected ?? [])].map((skill) => skill.id));
  const byId = (a: SkillMetadata, b: SkillMetadata) => compareCodeUnits(a.id, b.id);
  return [
    ...(proposed ?? []).filter((skill) => !moved.has(skill.id)).sort(byId),
    ...(promoted ?? []).sort(byId),
    ...(rejected ?? []).sort(byId),
  ];
}

async function verifiedCandidate(root: string, id: string) {
  assertSkillId(id);
  const dir = skillDir(root, "proposed", id);
  if (!(await isDirectory(dir))) {
    for (const status of ["promoted", "rejected"] as const) {
      if (await isDirectory(skillDir(root, status, id))) {
        throw new KxmError("skill_not_found", `no candidate skill ${id}; it is already ${status}`);
      }
    }
    throw new KxmError("skill_not_found", `no candidate skill ${id}`);
  }
  const { metadata, files, problems } = await inspectSkillFolder(dir, id, "proposed");
  if (metadata === undefined || problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    throw new KxmError("skill_unverified", `candidate skill ${id} does not verify: ${problems[0]}${more}`);
  }
  return { dir, metadata, files };
}

/**
 * Promotes a candidate: its files are verified against its metadata.json (`skill_unverified`), the promoter must
 * not be the proposer and 1..32 distinct evidence references are needed (`skill_promotion_invalid`). The verified
 * bytes land in `.kxm/skills/promoted/<id>/<name>/` (metadata.json in `<id>/`) first, whatever layout the
 * candidate had, then the candidate folder is removed; a crash in between leaves both, and `listSkills` then
 * reports the promoted one.
 */
export async function promoteSkill(
  root: string,
  id: string,
  options: { promotedBy: string; evidenceRefs: string[]; now: Date },
): Promise<SkillMetadata> {
  const candidate = await verifiedCandidate(root, id);
  const promotedBy = checkActor(options.promotedBy, "promotedBy", "skill_promotion_invalid");
  if (sameActor(promotedBy, candidate.metadata.proposedBy)) {
    throw new KxmError("skill_promotion_invalid", "promotedBy: the skill's proposer may not promote it");
  }
  const evidenceRefs = checkEvidenceRefs(options.evidenceRefs);
  const promotedAt = checkNow(options.now);
  await assertNotStored(root, id, ["promoted", "rejected"]);
  const metadata: SkillMetadata = {
    ...candidate.metadata,
    status: "promoted",
    promotedBy,
    promotedAt,
    evidenceRefs,
  };
  await writeSkillFolder(
    statusDir(root, "promoted"),
    id,
    metadata.name,
    candidate.files,
    serializeSkillMetadata(metadata),
  );
  await rm(candidate.dir, { recursive: true, force: true });
  await ensureGitAttributes(root);
  return metadata;
}

/**
 * Rejects a candidate: after the same verification as promotion, its files move to
 * `.kxm/skills/rejected/<id>/<name>/` with status `rejected`, `rejectedBy`, `rejectedAt` and a redacted `reason`
 * of 1..500 characters, kept as a record of what was considered. A proposer may withdraw their own candidate this way.
 */
export async function rejectSkill(
  root: string,
  id: string,
  options: { rejectedBy: string; reason: string; now: Date },
): Promise<SkillMetadata> {
  const candidate = await verifiedCandidate(root, id);
  const rejectedBy = checkActor(options.rejectedBy, "rejectedBy", "invalid_request");
  const reason = checkReason(options.reason);
  const rejectedAt = checkNow(options.now);
  await assertNotStored(root, id, ["promoted", "rejected"]);
  const metadata: SkillMetadata = {
    ...candidate.metadata,
    status: "rejected",
    rejectedBy,
    rejectedAt,
    reason,
  };
  await writeSkillFolder(
    statusDir(root, "rejected"),
    id,
    metadata.name,
    candidate.files,
    serializeSkillMetadata(metadata),
  );
  await rm(candidate.dir, { recursive: true, force: true });
  await ensureGitAttributes(root);
  return metadata;
}
