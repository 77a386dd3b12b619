import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubOperatorsRevoke extends KxmCommand {
  static override summary = "Revoke a named operator's token.";
  static override description =
    "Revokes the token of the operator NAME (admin token in KXM_AUTH_TOKEN): from then on the hub answers it 401 " +
    "invalid_auth. What the operator proposed, promoted or reviewed stays, recorded as operator:NAME. Create a new " +
    "token with kxm hub operators add. --json prints the hub's answer, {revoked}: false when the operator had no " +
    "active token.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> alice",
    "<%= config.bin %> <%= command.id %> alice --json",
  ];
  static override args = {
    name: Args.string({ description: "The operator's name", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ revoked: boolean }> {
    const { args, flags } = await this.parse(HubOperatorsRevoke);
    const { client } = connectHub(flags.hub);
    const answer = await client.revokeOperator({ params: { name: args.name } });
    this.say(
      answer.revoked
        ? `Revoked the token of operator ${args.name}`
        : `No active token for operator ${args.name}; nothing revoked`,
    );
    return answer;
  }
}
