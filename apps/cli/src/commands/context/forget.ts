import type { Tombstone } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextForget extends KxmCommand {
  static override summary =
    "Forget an item: delete it, keep a tombstone of its hash, refuse its content again.";
  static override description =
    "A stored item or journal entry (j_… or journal_j_…) is deleted, with every other stored copy of its content " +
    "in the project; an authored memory fact or skill, which git keeps, is withheld while the tombstone is active. " +
    "The tombstone keeps who, when, why, the id and the SHA-256 of the content, never the content; while it is " +
    "active a write of the same content is refused (content_forgotten). Needs an operator's token or the admin " +
    "token. --json prints the hub's answer, {tombstone, deleted}.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo state_0123456789abcdef01234567 --reason "Personal data"',
    '<%= config.bin %> <%= command.id %> demo mem_test-runner --reason "Wrong fact" --json',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    item: Args.string({ description: "The item's id, as packets and recall name it", required: true }),
  };
  static override flags = {
    reason: Flags.string({ description: "Why, recorded with the tombstone", required: true }),
    hub: hubFlag,
  };

  async run(): Promise<{ tombstone: Tombstone; deleted: string[] }> {
    const { args, flags } = await this.parse(ContextForget);
    const { client } = connectHub(flags.hub);
    const answer = await client.forget({
      params: { project: args.project, itemId: args.item },
      body: { reason: flags.reason },
    });
    const { tombstone, deleted } = answer;
    const what = deleted.length === 0 ? "withheld, nothing deleted" : `deleted ${deleted.join(", ")}`;
    this.say(`Forgot ${tombstone.itemId} as ${tombstone.id} (${what}; sha256 ${tombstone.contentSha256})`);
    return answer;
  }
}
