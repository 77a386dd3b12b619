import { Args } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubAgentsRevoke extends KxmCommand {
  static override summary = "Revoke an agent's key.";
  static override description =
    "Revokes the key of AGENT-ID in PROJECT (admin token in KXM_AUTH_TOKEN): from then on the hub answers its " +
    "requests 401 invalid_auth. Create a new key with kxm hub agents add. --json prints the hub's answer, " +
    "{revoked}: false when the agent had no active key.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo planner",
    "<%= config.bin %> <%= command.id %> demo planner --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "agent-id": Args.string({ description: "The agent's id", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<{ revoked: boolean }> {
    const { args, flags } = await this.parse(HubAgentsRevoke);
    const { client } = connectHub(flags.hub);
    const answer = await client.revokeAgentKey({
      params: { project: args.project, agentId: args["agent-id"] },
    });
    const agent = `agent ${args["agent-id"]} in project ${args.project}`;
    this.say(answer.revoked ? `Revoked the key of ${agent}` : `No active key for ${agent}; nothing revoked`);
    return answer;
  }
}
