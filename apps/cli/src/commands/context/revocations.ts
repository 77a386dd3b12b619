import type { Revocation } from "@kxm/contract";
import { Args } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextRevocations extends KxmCommand {
  static override summary = "List a project's revocations, lifted ones too.";
  static override description =
    "One line per revocation, oldest first: its id, active or lifted, the target and value, who revoked it and " +
    "when, and why; a lifted one adds who lifted it, when and why. Needs an operator's token or the admin token. " +
    "--json prints the hub's answer, {revocations}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ revocations: Revocation[] }> {
    const { args, flags } = await this.parse(ContextRevocations);
    const { client } = connectHub(flags.hub);
    const answer = await client.listRevocations({ params: { project: args.project } });
    if (answer.revocations.length === 0) this.say(`No revocations in ${args.project}`);
    for (const r of answer.revocations) {
      const state = r.liftedAt === undefined ? "active" : "lifted";
      let line = `${r.id} ${state} ${r.target} ${r.value} by ${r.revokedBy} at ${r.revokedAt}: ${r.reason}`;
      if (r.liftedAt !== undefined) line += `; lifted by ${r.liftedBy} at ${r.liftedAt}: ${r.liftReason}`;
      this.say(line);
    }
    return answer;
  }
}
