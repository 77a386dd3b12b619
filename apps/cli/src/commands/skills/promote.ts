import type { SkillMetadata } from "@kxm/memory-git";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

export default class SkillsPromote extends KxmCommand {
  static override summary = "Promote a proposed skill, with evidence of its review.";
  static override description =
    "Verifies the candidate's files against their hashes, then copies it into .kxm/skills/promoted/<id>/ with the " +
    "promoter and the evidence references in metadata.json. The promoter must differ from the proposer. Commit " +
    "the result in a pull request: agents receive only promoted skills whose hash verifies.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> release-checklist.0123456789ab --evidence review:pr-31",
    "KXM_ACTOR=lead@example.com <%= config.bin %> <%= command.id %> release-checklist.0123456789ab --evidence pr:31 --evidence review:pr-31",
  ];
  static override args = {
    id: Args.string({ description: "The skill id, as kxm skills list prints it", required: true }),
  };
  static override flags = {
    evidence: Flags.string({
      description: "An evidence reference such as review:pr-31 (1 to 32; repeat the flag)",
      multiple: true,
      required: true,
    }),
  };

  async run(): Promise<SkillMetadata> {
    const { args, flags } = await this.parse(SkillsPromote);
    const root = await this.projectRoot(flags.cwd);
    const { promoteSkill } = await import("@kxm/memory-git");
    const metadata = await promoteSkill(root, args.id, {
      promotedBy: await this.actor(root),
      evidenceRefs: flags.evidence,
      now: new Date(),
    });
    this.say(`Promoted ${metadata.id} (by ${metadata.promotedBy})`);
    return metadata;
  }
}
