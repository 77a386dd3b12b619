import type { RejectedCandidate } from "@kxm/memory-git";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

export default class MemoryReject extends KxmCommand {
  static override summary = "Reject a memory candidate, keeping it with the reason.";
  static override description =
    "Moves the candidate to .kxm/memory/candidates/rejected/<candidate>.md with you as rejectedBy, the time and " +
    "the reason, kept as evidence of what was considered. A rejected candidate is never loaded and never part of " +
    "the memory revision; noting the same summary again finds it and writes nothing.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> cand_project_c79000045dc9 --reason "One flaky run is not a fact"',
  ];
  static override args = {
    candidate: Args.string({
      description: "The candidate's id, as kxm memory candidates prints it",
      required: true,
    }),
  };
  static override flags = {
    reason: Flags.string({ description: "Why it was rejected (1 to 500 characters)", required: true }),
  };

  async run(): Promise<RejectedCandidate> {
    const { args, flags } = await this.parse(MemoryReject);
    const root = await this.projectRoot(flags.cwd);
    const { rejectMemoryCandidate } = await import("@kxm/memory-git");
    const rejected = await rejectMemoryCandidate(root, args.candidate, {
      reason: flags.reason,
      rejectedBy: await this.actor(root),
      now: new Date(),
    });
    this.say(`Rejected ${rejected.id} (by ${rejected.rejectedBy}); kept as ${rejected.file}`);
    return rejected;
  }
}
