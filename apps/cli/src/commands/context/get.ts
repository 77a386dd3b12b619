import { type AssembledPacket, ITEM_KINDS } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";
import { describePacket } from "../../packet-output.js";

export default class ContextGet extends KxmCommand {
  static override summary = "Assemble a context packet for a role and task.";
  static override description =
    "Asks the hub for the token-budgeted packet an agent in --role would receive for --task: the selected items by " +
    "section (open contradictions, current state, knowledge, evidence, episodes, skills), the gaps, and the " +
    "relevance score of each item. Selection is deterministic: the same records and request give the same packet. " +
    "--json prints the hub's answer, {packet, audit}, unchanged. Authenticates with the admin token in " +
    "KXM_AUTH_TOKEN.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo --role planner --task "Which branch do we release from?"',
    '<%= config.bin %> <%= command.id %> demo --role planner --task "Which branch do we release from?" --json',
    '<%= config.bin %> <%= command.id %> demo --role implementer --task "Fix the flaky login test" --budget 4000 --kinds knowledge,skill',
    '<%= config.bin %> <%= command.id %> demo --role repro --task "Why did the build fail?" --run run-42 --stage test',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    role: Flags.string({
      description: "The requesting role: repro, planner, critic, implementer, verifier or any other name",
      required: true,
    }),
    task: Flags.string({
      description: "What the agent is about to do (at most 2,000 characters)",
      required: true,
    }),
    budget: Flags.integer({ description: "Token budget, 512 to 200,000 (default: the role's budget)" }),
    kinds: Flags.string({
      description: "Item kinds to include, comma-separated (default: the role's kinds)",
      options: [...ITEM_KINDS],
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ",",
    }),
    run: Flags.string({ description: "Limit journal items to one workflow run" }),
    stage: Flags.string({ description: "Limit journal items to one stage of the run" }),
    hub: hubFlag,
  };

  async run(): Promise<AssembledPacket> {
    const { args, flags } = await this.parse(ContextGet);
    const { client } = connectHub(flags.hub);
    const answer = await client.getContext({
      params: { project: args.project },
      body: {
        role: flags.role,
        task: flags.task,
        ...(flags.budget === undefined ? {} : { budgetTokens: flags.budget }),
        ...(flags.kinds === undefined ? {} : { includeKinds: flags.kinds as (typeof ITEM_KINDS)[number][] }),
        ...(flags.run === undefined ? {} : { runId: flags.run }),
        ...(flags.stage === undefined ? {} : { stage: flags.stage }),
      },
    });
    if (!this.jsonEnabled()) for (const line of describePacket(answer)) this.say(line);
    return answer;
  }
}
