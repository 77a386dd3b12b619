import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubOperatorsList extends KxmCommand {
  static override summary = "List the operators that hold an active token.";
  static override description =
    "Lists every operator whose token is active, with when it was created (admin token in KXM_AUTH_TOKEN). " +
    "Tokens are never shown: the hub keeps only their hashes. --json prints the hub's answer, " +
    "{operators: [{name, createdAt}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];
  static override flags = { hub: hubFlag };

  async run(): Promise<{ operators: Array<{ name: string; createdAt: string }> }> {
    const { flags } = await this.parse(HubOperatorsList);
    const { client } = connectHub(flags.hub);
    const answer = await client.listOperators({});
    if (answer.operators.length === 0) this.say("No operators.");
    for (const operator of answer.operators) this.say(`${operator.name}  ${operator.createdAt}`);
    return answer;
  }
}
