import type { Tombstone } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextUnforget extends KxmCommand {
  static override summary = "Lift a tombstone: its content may be written again.";
  static override description =
    "Lifts an active tombstone and records who, when and why; the tombstone stays in the list. A deleted item does " +
    "not come back, but its content may be written again, and a forgotten authored fact or skill is served again. " +
    "Lifting one already lifted is refused (invalid_request). Needs an operator's token or the admin token. --json " +
    "prints the hub's answer, {tombstone}.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo tomb_0123456789abcdef01234567 --reason "Consent was given"',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    tombstone: Args.string({ description: "The tombstone's id (tomb_…)", required: true }),
  };
  static override flags = {
    reason: Flags.string({ description: "Why, recorded with the lifting", required: true }),
    hub: hubFlag,
  };

  async run(): Promise<{ tombstone: Tombstone }> {
    const { args, flags } = await this.parse(ContextUnforget);
    const { client } = connectHub(flags.hub);
    const answer = await client.unforget({
      params: { project: args.project, tombstoneId: args.tombstone },
      body: { reason: flags.reason },
    });
    const { tombstone } = answer;
    this.say(`Lifted ${tombstone.id} (${tombstone.liftedBy} at ${tombstone.liftedAt})`);
    return answer;
  }
}
