import type { Revocation } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextUnrevoke extends KxmCommand {
  static override summary = "Lift a revocation: what it withheld is served again.";
  static override description =
    "Lifts an active revocation and records who, when and why; the revocation stays in the list. Lifting one " +
    "already lifted is refused (invalid_request). Needs an operator's token or the admin token. --json prints the " +
    "hub's answer, {revocation}.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo rev_0123456789abcdef01234567 --reason "Checked again"',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    revocation: Args.string({ description: "The revocation's id (rev_…)", required: true }),
  };
  static override flags = {
    reason: Flags.string({ description: "Why, recorded with the lifting", required: true }),
    hub: hubFlag,
  };

  async run(): Promise<{ revocation: Revocation }> {
    const { args, flags } = await this.parse(ContextUnrevoke);
    const { client } = connectHub(flags.hub);
    const answer = await client.unrevoke({
      params: { project: args.project, revocationId: args.revocation },
      body: { reason: flags.reason },
    });
    const { revocation } = answer;
    this.say(`Lifted ${revocation.id} (${revocation.liftedBy} at ${revocation.liftedAt})`);
    return answer;
  }
}
