import { join } from "node:path";
import { KXM_PATHS } from "../layout.js";
import type { SkillStatus } from "./metadata.js";

const FOLDERS: Readonly<Record<SkillStatus, string>> = {
  proposed: KXM_PATHS.skillCandidates,
  promoted: KXM_PATHS.promotedSkills,
  rejected: KXM_PATHS.rejectedSkills,
};

/** The folder holding every skill of one status: `candidates`, `promoted` or `rejected`. */
export function statusDir(root: string, status: SkillStatus): string {
  return join(root, FOLDERS[status]);
}

/**
 * One skill's record folder, `<status folder>/<id>`: its metadata.json and the skill itself in `<name>/`, so that
 * every stored copy is a valid Agent Skill where it sits (see `writeSkillFolder`, `skillFilesPrefix`). `id` must
 * already match `SKILL_ID_PATTERN`, so it cannot leave `statusDir`.
 */
export function skillDir(root: string, status: SkillStatus, id: string): string {
  return join(statusDir(root, status), id);
}
