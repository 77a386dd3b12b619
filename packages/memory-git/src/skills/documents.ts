import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { projectPath } from "../files.js";
import { statusDir } from "./paths.js";
import { inspectPromotedSkills } from "./verify.js";

/** A promoted skill's SKILL.md as a harness loads it, or why it is not loaded. */
export interface PromotedSkillDocument {
  readonly id: string;
  /** The skill's `name` (the folder name when it does not verify). */
  readonly name: string;
  /** SKILL.md, relative to the project root with `/`. */
  readonly file: string;
  /** The text of SKILL.md; only for a skill that verifies (an unverified one is never delivered). */
  readonly text?: string;
}

/** Every promoted skill's SKILL.md, sorted by id; a skill whose hashes do not verify has no `text`. */
export async function promotedSkillDocuments(root: string): Promise<PromotedSkillDocument[]> {
  const documents: PromotedSkillDocument[] = [];
  for (const skill of await inspectPromotedSkills(root)) {
    const folder = join(statusDir(root, "promoted"), skill.id);
    if (!skill.ok || skill.metadata === undefined) {
      documents.push({ id: skill.id, name: skill.id, file: projectPath(root, join(folder, "SKILL.md")) });
      continue;
    }
    // A copy stored as a valid Agent Skill sits in `<id>/<name>/`; one from before that layout, in `<id>/`.
    const nested = join(folder, skill.metadata.name, "SKILL.md");
    const path = (await exists(nested)) ? nested : join(folder, "SKILL.md");
    const file = projectPath(root, path);
    documents.push({ id: skill.id, name: skill.metadata.name, file, text: await readFile(path, "utf8") });
  }
  return documents;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
