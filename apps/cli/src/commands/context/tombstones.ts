import type { Tombstone } from "@kxm/contract";
import { Args } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextTombstones extends KxmCommand {
  static override summary = "List a project's tombstones, lifted ones too.";
  static override description =
    "One line per tombstone, oldest first: its id, active or lifted, the forgotten id and what it was (item, " +
    "journal, authored), the SHA-256 of its content, who forgot it and when, and why; a lifted one adds who lifted " +
    "it, when and why. Never the content. Needs an operator's token or the admin token. --json prints the hub's " +
    "answer, {tombstones}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ tombstones: Tombstone[] }> {
    const { args, flags } = await this.parse(ContextTombstones);
    const { client } = connectHub(flags.hub);
    const answer = await client.listTombstones({ params: { project: args.project } });
    if (answer.tombstones.length === 0) this.say(`No tombstones in ${args.project}`);
    for (const t of answer.tombstones) {
      const state = t.liftedAt === undefined ? "active" : "lifted";
      let line = `${t.id} ${state} ${t.kind} ${t.itemId} sha256 ${t.contentSha256} by ${t.forgottenBy} at ${t.forgottenAt}: ${t.reason}`;
      if (t.liftedAt !== undefined) line += `; lifted by ${t.liftedBy} at ${t.liftedAt}: ${t.liftReason}`;
      this.say(line);
    }
    return answer;
  }
}
