import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, isKxmError, KxmError } from "@kxm/contract";
import { projectPath } from "../files.js";
import {
  displayPath,
  errorCode,
  type FolderEntry,
  isMissing,
  listFolder,
  readRegularFile,
  SKILL_FOLDER_LIMITS,
  type SkillFile,
  sha256Hex,
} from "./folder.js";
import {
  isSkillFilePath,
  METADATA_FILE,
  parseSkillMetadata,
  SKILL_ID_PATTERN,
  type SkillMetadata,
  type SkillStatus,
} from "./metadata.js";
import { skillDir, statusDir } from "./paths.js";
import { parseSkillMarkdown, skillContentSha256, skillId } from "./skill-file.js";

/** The outcome of checking one stored skill folder against its metadata.json. */
export interface SkillInspection {
  metadata?: SkillMetadata;
  files: SkillFile[];
  problems: string[];
}

/** Public shape of one verification. */
export interface SkillVerification {
  id: string;
  ok: boolean;
  problems: string[];
}

const SKILL_FILE = "SKILL.md";
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 strictly, or undefined: a SKILL.md that is not text is not a skill. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

async function readMetadata(dir: string): Promise<{ metadata: SkillMetadata } | { problem: string }> {
  const read = await readRegularFile(join(dir, METADATA_FILE), SKILL_FOLDER_LIMITS.fileBytes);
  if ("problem" in read) return { problem: `${METADATA_FILE}: ${read.problem}` };
  const parsed = parseSkillMetadata(new TextDecoder().decode(read.bytes));
  return "problem" in parsed ? { problem: `${METADATA_FILE}${parsed.problem}` } : parsed;
}

/**
 * Where a record folder keeps the skill's files, as a path prefix: `<name>/` (the layout every write uses, a valid
 * Agent Skill where it sits), or `""` for a folder written before it, whose SKILL.md sits beside metadata.json.
 * Such folders are still read, verified and delivered; the next move (promotion, rejection) writes the new layout.
 */
function skillFilesPrefix(entries: readonly FolderEntry[], name: string): string {
  return entries.some((entry) => entry.path === SKILL_FILE) ? "" : `${name}/`;
}

async function checkFiles(dir: string, metadata: SkillMetadata, problems: string[]): Promise<SkillFile[]> {
  const files: SkillFile[] = [];
  const seen = new Set<string>();
  const entries = await listFolder(dir, { skipGit: false });
  const prefix = skillFilesPrefix(entries, metadata.name);
  for (const entry of entries) {
    if (entry.path === METADATA_FILE) continue;
    if (!entry.path.startsWith(prefix)) {
      problems.push(`${displayPath(entry.path)}: is outside the skill's folder ${metadata.name}/`);
      continue;
    }
    const path = entry.path.slice(prefix.length);
    const shown = displayPath(path);
    const expected = Object.hasOwn(metadata.files, path) ? metadata.files[path] : undefined;
    if (!isSkillFilePath(path) || expected === undefined) {
      problems.push(`${shown}: is not listed in ${METADATA_FILE} files`);
      continue;
    }
    seen.add(path);
    if (entry.kind !== "file") {
      problems.push(`${shown}: ${entry.kind === "symlink" ? "is a symbolic link" : "is not a regular file"}`);
      continue;
    }
    const read = await readRegularFile(join(dir, ...entry.path.split("/")), SKILL_FOLDER_LIMITS.fileBytes);
    if ("problem" in read) {
      problems.push(`${shown}: ${read.problem}`);
      continue;
    }
    const sha256 = sha256Hex(read.bytes);
    if (sha256 !== expected) problems.push(`${shown}: sha256 differs from ${METADATA_FILE} files`);
    files.push({ path, bytes: read.bytes, sha256, executable: read.executable });
  }
  for (const path of Object.keys(metadata.files).sort()) {
    if (!seen.has(path)) problems.push(`${displayPath(path)}: is missing`);
  }
  return files;
}

function checkSkillMarkdown(files: readonly SkillFile[], metadata: SkillMetadata, problems: string[]): void {
  const skillFile = files.find((file) => file.path === SKILL_FILE);
  if (skillFile === undefined) {
    if (!Object.hasOwn(metadata.files, SKILL_FILE)) problems.push(`${SKILL_FILE}: is missing`);
    return;
  }
  const text = decodeUtf8(skillFile.bytes);
  if (text === undefined) {
    problems.push(`${SKILL_FILE}: is not valid UTF-8`);
    return;
  }
  if (skillContentSha256(text) !== metadata.contentSha256) {
    problems.push(`${SKILL_FILE}: content hash differs from ${METADATA_FILE} contentSha256`);
  }
  try {
    const { frontMatter } = parseSkillMarkdown(text, SKILL_FILE);
    if (frontMatter.name !== metadata.name)
      problems.push(`${METADATA_FILE} name: differs from ${SKILL_FILE}`);
    if (frontMatter.description !== metadata.description) {
      problems.push(`${METADATA_FILE} description: differs from ${SKILL_FILE}`);
    }
  } catch (error) {
    if (!isKxmError(error)) throw error;
    problems.push(error.message);
  }
}

/**
 * Checks a stored skill folder: metadata.json parses, its id is the folder's name and the folder's status, every
 * listed file exists with its hash and nothing else is there, SKILL.md parses and its normalised hash is
 * `contentSha256`, name and description agree with SKILL.md, and the id is `skillId(name, contentSha256)`.
 * Problems are one line each, naming the file and what differs, never content. The files read are returned so a
 * move writes exactly the bytes that were checked.
 */
export async function inspectSkillFolder(
  dir: string,
  folderName: string,
  status: SkillStatus,
): Promise<SkillInspection> {
  const read = await readMetadata(dir);
  if ("problem" in read) return { files: [], problems: [read.problem] };
  const { metadata } = read;
  const problems: string[] = [];
  if (metadata.id !== folderName) problems.push(`${METADATA_FILE} id: does not match the folder name`);
  if (metadata.status !== status)
    problems.push(`${METADATA_FILE} status: is ${metadata.status}, not ${status}`);
  const files = await checkFiles(dir, metadata, problems);
  checkSkillMarkdown(files, metadata, problems);
  if (skillId(metadata.name, metadata.contentSha256) !== metadata.id) {
    problems.push(`${METADATA_FILE} id: does not match skillId(name, contentSha256)`);
  }
  return { metadata, files, problems };
}

async function inspectSafely(dir: string, name: string, status: SkillStatus): Promise<SkillInspection> {
  try {
    return await inspectSkillFolder(dir, name, status);
  } catch (error) {
    const detail = isKxmError(error) ? error.message : `cannot be read (${errorCode(error) ?? "error"})`;
    return { files: [], problems: [`${displayPath(name)}: ${detail}`] };
  }
}

/** `skill_not_found` unless `id` is well-formed; the check also keeps `id` from naming a path outside. */
export function assertSkillId(id: string): void {
  if (!SKILL_ID_PATTERN.test(id))
    throw new KxmError("skill_not_found", "no skill has that id (ids are <slug>.<12 hex>)");
}

/** Verifies one promoted skill; `skill_not_found` when `.kxm/skills/promoted/<id>` does not exist. */
export async function verifySkill(root: string, id: string): Promise<SkillVerification> {
  assertSkillId(id);
  const dir = skillDir(root, "promoted", id);
  const info = await lstat(dir).catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw error;
  });
  if (info === undefined) throw new KxmError("skill_not_found", `no promoted skill ${id}`);
  if (!info.isDirectory()) return { id, ok: false, problems: [`${id}: is not a skill folder`] };
  const { problems } = await inspectSafely(dir, id, "promoted");
  return { id, ok: problems.length === 0, problems };
}

/** Every promoted folder verified, by name; a dot-named entry (a temporary folder, `.gitkeep`) is skipped. */
export async function inspectPromotedSkills(
  root: string,
): Promise<Array<SkillVerification & { metadata?: SkillMetadata }>> {
  const dir = statusDir(root, "promoted");
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw new KxmError("skill_invalid", `${projectPath(root, dir)}: cannot be listed`);
  }
  const names = entries
    .filter((entry) => !entry.name.startsWith("."))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  const results: Array<SkillVerification & { metadata?: SkillMetadata }> = [];
  for (const entry of names) {
    if (!entry.isDirectory()) {
      results.push({
        id: entry.name,
        ok: false,
        problems: [`${displayPath(entry.name)}: is not a skill folder`],
      });
      continue;
    }
    const inspection = await inspectSafely(join(dir, entry.name), entry.name, "promoted");
    const ok = inspection.problems.length === 0;
    results.push({
      id: entry.name,
      ok,
      problems: inspection.problems,
      ...(ok && inspection.metadata ? { metadata: inspection.metadata } : {}),
    });
  }
  return results;
}

/** Verifies every promoted skill, by id. A folder that cannot be read is a failed entry, not a throw. */
export async function verifyPromotedSkills(root: string): Promise<SkillVerification[]> {
  return (await inspectPromotedSkills(root)).map(({ id, ok, problems }) => ({ id, ok, problems }));
}
