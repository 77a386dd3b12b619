import type { AcceptedCandidate } from "@kxm/memory-git";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

export default class MemoryAccept extends KxmCommand {
  static override summary = "Accept a memory candidate into .kxm/memory/, for a commit.";
  static override description =
    "Writes .kxm/memory/<id>.md, a kxm.memory.v1 fact with the candidate's scope, kind, summary and source, the " +
    "id and authority you give, evidence candidate:<candidate>, and you as acceptedBy; checks it with the memory " +
    "rules, then removes the candidate. Refuses an id a fact already holds. Commit the fact in a pull request: " +
    "agents see only committed memory.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> cand_project_c79000045dc9 --id use-pnpm --authority instruction",
    "KXM_ACTOR=lead@example.com <%= config.bin %> <%= command.id %> cand_project_c79000045dc9 --id flaky-release-test --authority evidence --confidence verified --json",
  ];
  static override args = {
    candidate: Args.string({
      description: "The candidate's id, as kxm memory candidates prints it",
      required: true,
    }),
  };
  static override flags = {
    id: Flags.string({ description: "The fact's id: lower-case words joined by - or _", required: true }),
    authority: Flags.string({
      description: "What the fact claims to be",
      options: ["instruction", "evidence", "promoted"],
      required: true,
    }),
    confidence: Flags.string({
      description: "How sure it is (default: the candidate's)",
      options: ["verified", "probable", "uncertain"],
    }),
  };

  async run(): Promise<AcceptedCandidate> {
    const { args, flags } = await this.parse(MemoryAccept);
    const root = await this.projectRoot(flags.cwd);
    const { acceptMemoryCandidate } = await import("@kxm/memory-git");
    const accepted = await acceptMemoryCandidate(root, args.candidate, {
      id: flags.id,
      authority: flags.authority as "instruction",
      ...(flags.confidence === undefined ? {} : { confidence: flags.confidence as "verified" }),
      acceptedBy: await this.actor(root),
      now: new Date(),
    });
    this.say(
      `Accepted ${accepted.candidate} as ${accepted.file} (${accepted.authority}, by ${accepted.acceptedBy}); commit it`,
    );
    return accepted;
  }
}
