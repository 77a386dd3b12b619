import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubAgentsAdd extends KxmCommand {
  static override summary = "Create an agent key for a project; the key is shown once.";
  static override description =
    "Creates a key for AGENT-ID in PROJECT (admin token in KXM_AUTH_TOKEN) and prints it once: the hub keeps " +
    "only its hash, so store it in the agent's secret store now. An agent calls the hub with it as KXM_AGENT_KEY; " +
    "what it proposes is peer origin, capped at evidence authority, and it can reach only its own project. " +
    "--json prints the hub's answer, {project, agentId, key}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo planner",
    "<%= config.bin %> <%= command.id %> demo critic-arch --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "agent-id": Args.string({
      description: "The agent's id, such as planner or critic-arch",
      required: true,
    }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ project: string; agentId: string; key: string }> {
    const { args, flags } = await this.parse(HubAgentsAdd);
    const { client } = connectHub(flags.hub);
    const answer = await client.createAgentKey({
      params: { project: args.project },
      body: { agentId: args["agent-id"] },
    });
    this.say(`Created a key for agent ${answer.agentId} in project ${answer.project}:`);
    this.say("");
    this.say(`  ${answer.key}`);
    this.say("");
    this.say("Store it now: it will not be shown again.");
    return answer;
  }
}
