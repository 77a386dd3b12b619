import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubAgentsRotate extends KxmCommand {
  static override summary = "Replace an agent's key with a new one; the new key is shown once.";
  static override description =
    "Revokes the active key of AGENT-ID in PROJECT and creates a new one in one step (admin token in " +
    "KXM_AUTH_TOKEN): from then on the old key is answered 401 invalid_auth. The new key is printed once: the hub " +
    "keeps only its hash, so store it in the agent's secret store now. An agent with no active key is not_found " +
    "(create one with kxm hub agents add). --json prints the hub's answer, {project, agentId, key}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo planner",
    "<%= config.bin %> <%= command.id %> demo planner --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "agent-id": Args.string({ description: "The agent's id", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ project: string; agentId: string; key: string }> {
    const { args, flags } = await this.parse(HubAgentsRotate);
    const { client } = connectHub(flags.hub);
    const answer = await client.rotateAgentKey({
      params: { project: args.project, agentId: args["agent-id"] },
    });
    this.say(
      `Rotated the key of agent ${answer.agentId} in project ${answer.project}; the old key no longer works:`,
    );
    this.say("");
    this.say(`  ${answer.key}`);
    this.say("");
    this.say("Store it now: it will not be shown again.");
    return answer;
  }
}
