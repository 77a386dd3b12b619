import type { ContextItem } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextPromote extends KxmCommand {
  static override summary = "Promote a state proposal, with evidence of its review.";
  static override description =
    "Makes the proposal the current value of its key, as the operator in KXM_OPERATOR_TOKEN (recorded as " +
    "operator:<name>), else as kxm-admin with the admin token in KXM_AUTH_TOKEN; an agent key never promotes, and " +
    "the hub must run with an admin token. Every current value of the key is superseded, and a new current item " +
    "is minted that keeps the proposal's origin and authority, with the union of its evidence and yours. The " +
    "proposal's author may not promote it: an operator's proposal is promoted by a second operator or the admin " +
    "token, and one made with the admin token by an operator. --json prints the hub's answer, {state}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo state_0123456789abcdef --evidence review:pr-12",
    "<%= config.bin %> <%= command.id %> demo state_0123456789abcdef --evidence review:pr-12 --evidence ci:run-881 --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "proposal-id": Args.string({ description: "The proposal's id, as the hub answered it", required: true }),
  };
  static override flags = {
    evidence: Flags.string({
      description: "An evidence reference such as review:pr-12 (1 to 32; repeat the flag)",
      multiple: true,
      multipleNonGreedy: true,
      required: true,
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ state: ContextItem }> {
    const { args, flags } = await this.parse(ContextPromote);
    const { client } = connectHub(flags.hub);
    const answer = await client.promoteState({
      params: { project: args.project, proposalId: args["proposal-id"] },
      body: { evidenceRefs: flags.evidence },
    });
    const { state } = answer;
    this.say(
      `Promoted ${args["proposal-id"]}: ${state.stateKey ?? "the key"} is now ${state.id} ` +
        `(${state.status ?? "current"}, ${state.authority}, origin ${state.provenance.sourceType})`,
    );
    return answer;
  }
}
