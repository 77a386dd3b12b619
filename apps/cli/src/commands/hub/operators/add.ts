import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubOperatorsAdd extends KxmCommand {
  static override summary = "Create a named operator's token; the token is shown once.";
  static override description =
    "Creates a token for the operator NAME (admin token in KXM_AUTH_TOKEN) and prints it once: the hub keeps only " +
    "its hash, so hand it to the operator through a secret store now. With it in KXM_OPERATOR_TOKEN, the operator " +
    "proposes (human origin, up to policy authority), promotes, reviews and reads in every project, recorded as " +
    "operator:NAME; the operator may not promote their own proposal, so a second operator (or the admin token) " +
    "does. Operators never manage projects, agent keys or other operators. --json prints the hub's answer, " +
    "{name, token}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> alice",
    "<%= config.bin %> <%= command.id %> bob --json",
  ];
  static override args = {
    name: Args.string({
      description: "The operator's name: lowercase letters, digits, '.', '_' or '-' (at most 64)",
      required: true,
    }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ name: string; token: string }> {
    const { args, flags } = await this.parse(HubOperatorsAdd);
    const { client } = connectHub(flags.hub);
    const answer = await client.createOperator({ body: { name: args.name } });
    this.say(`Created a token for operator ${answer.name}:`);
    this.say("");
    this.say(`  ${answer.token}`);
    this.say("");
    this.say("Store it now: it will not be shown again. The operator exports it as KXM_OPERATOR_TOKEN.");
    return answer;
  }
}
