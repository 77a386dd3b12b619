import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubAgentsList extends KxmCommand {
  static override summary = "List the agents of a project that hold an active key.";
  static override description =
    "Lists every agent of PROJECT whose key is active, with when the key was created (admin token in " +
    "KXM_AUTH_TOKEN). Keys are never shown: the hub keeps only their hashes. --json prints the hub's answer, " +
    "{project, agents: [{agentId, createdAt}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ project: string; agents: Array<{ agentId: string; createdAt: string }> }> {
    const { args, flags } = await this.parse(HubAgentsList);
    const { client } = connectHub(flags.hub);
    const answer = await client.listAgentKeys({ params: { project: args.project } });
    if (answer.agents.length === 0) this.say(`No agent of project ${answer.project} holds an active key.`);
    for (const agent of answer.agents) this.say(`${agent.agentId}  ${agent.createdAt}`);
    return answer;
  }
}
