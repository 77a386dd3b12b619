import type { SkillMetadata } from "@kxm/memory-git";
import { KxmCommand } from "../../base.js";

export default class SkillsList extends KxmCommand {
  static override summary = "List proposed, promoted and rejected skills.";
  static override description =
    "Lists every skill under .kxm/skills/, proposed first, then promoted, then rejected.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<{ skills: SkillMetadata[] }> {
    const { flags } = await this.parse(SkillsList);
    const root = await this.projectRoot(flags.cwd);
    const { listSkills } = await import("@kxm/memory-git");
    const skills = await listSkills(root);
    if (skills.length === 0) this.say("No skills.");
    for (const skill of skills) this.say(`${skill.status.padEnd(8)}  ${skill.id}  ${skill.description}`);
    return { skills };
  }
}
