import type { SkillMetadata } from "@kxm/memory-git";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

export default class SkillsReject extends KxmCommand {
  static override summary = "Reject a proposed skill, keeping it with the reason.";
  static override description =
    "Moves the candidate to .kxm/skills/rejected/<id>/ with the rejector and the reason in metadata.json, as " +
    "evidence of what was considered. A rejected skill is never delivered to an agent.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> release-checklist.0123456789ab --reason "Duplicates the deploy runbook"',
  ];
  static override args = { id: Args.string({ description: "The candidate's id", required: true }) };
  static override flags = {
    reason: Flags.string({ description: "Why it was rejected (1 to 500 characters)", required: true }),
  };

  async run(): Promise<SkillMetadata> {
    const { args, flags } = await this.parse(SkillsReject);
    const root = await this.projectRoot(flags.cwd);
    const { rejectSkill } = await import("@kxm/memory-git");
    const metadata = await rejectSkill(root, args.id, {
      rejectedBy: await this.actor(root),
      reason: flags.reason,
      now: new Date(),
    });
    this.say(`Rejected ${metadata.id} (by ${metadata.rejectedBy})`);
    return metadata;
  }
}
