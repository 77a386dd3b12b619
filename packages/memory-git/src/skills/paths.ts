import { join } from "node:path";
import type { SkillStatus } from "./metadata.js";

const FOLDERS: Readonly<Record<SkillStatus, string>> = {
  proposed: "candidates",
  promoted: "promoted",
  rejected: "rejected",
};

/** `.kxm/skills` under the project root. */
export function skillsRoot(root: string): string {
  return join(root, ".kxm", "skills");
}

/** The folder holding every skill of one status: `candidates`, `promoted` or `rejected`. */
export function statusDir(root: string, status: SkillStatus): string {
  return join(skillsRoot(root), FOLDERS[status]);
}

/**
 * One skill's record folder, `<status folder>/<id>`: its metadata.json and the skill itself in `<name>/`, so that
 * every stored copy is a valid Agent Skill where it sits (see `writeSkillFolder`, `skillFilesPrefix`). `id` must
 * already match `SKILL_ID_PATTERN`, so it cannot leave `statusDir`.
 */
export function skillDir(root: string, status: SkillStatus, id: string): string {
  return join(statusDir(root, status), id);
}
