import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { SkillMetadata } from "@kxm/memory-git";
import { Args } from "@oclif/core";
import { KxmCommand, UsageError } from "../../base.js";

export default class SkillsPropose extends KxmCommand {
  static override summary = "Propose a skill folder (Agent Skills format) for review.";
  static override description =
    "Copies a folder holding SKILL.md (front matter with name and description) into " +
    ".kxm/skills/candidates/<id>/ with metadata.json recording its content hash and the proposer. The id is the " +
    "name's slug and the first 12 hex digits of the hash. A proposed skill is never delivered to an agent.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> ./skills/release-checklist",
    "KXM_ACTOR=agent-planner <%= config.bin %> <%= command.id %> ./skills/release-checklist --json",
  ];
  static override args = {
    folder: Args.string({
      description: "The skill folder, holding SKILL.md (relative to --cwd)",
      required: true,
    }),
  };

  async run(): Promise<SkillMetadata> {
    const { args, flags } = await this.parse(SkillsPropose);
    // The folder is read relative to --cwd, like everything else the command touches.
    const folder = resolve(await this.workingFolder(flags.cwd), args.folder);
    const isFolder = await stat(folder).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) throw new UsageError(`FOLDER: no folder at ${args.folder}`);
    const root = await this.projectRoot(flags.cwd);
    const { proposeSkill } = await import("@kxm/memory-git");
    const metadata = await proposeSkill(root, folder, {
      proposedBy: await this.actor(root),
      now: new Date(),
    });
    this.say(`Proposed ${metadata.id} (by ${metadata.proposedBy})`);
    return metadata;
  }
}
