import type { ExplanationSchema } from "@kxm/contract";
import { Args } from "@oclif/core";
import type { z } from "zod";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

type Explanation = z.output<typeof ExplanationSchema>;

export default class ContextExplain extends KxmCommand {
  static override summary = "Explain an item: whether it exists, its lineage, evidence and sources.";
  static override description =
    "An operator query (KXM_OPERATOR_TOKEN, else the admin token in KXM_AUTH_TOKEN): whether ITEM-ID exists in " +
    "the project, its kind, " +
    "authority, confidence and source, why the hub withholds it (revoked, forgotten, expired, check_failed) when it " +
    "does, its evidence references, and its derivation lineage with the source of each ancestor. Not to be " +
    "confused with kxm explain, which estimates a mode's prompt footprint. --json prints the hub's answer, {id, " +
    "exists, withheld?, item?, lineage, lineageDepth, evidenceRefs}, unchanged.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo mem_test-runner",
    "<%= config.bin %> <%= command.id %> demo state_0123456789abcdef --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    "item-id": Args.string({ description: "The item's id, as a packet or recall lists it", required: true }),
  };
  static override flags = { hub: hubFlag };

  async run(): Promise<Explanation> {
    const { args, flags } = await this.parse(ContextExplain);
    const { client } = connectHub(flags.hub);
    const answer = await client.explain({ params: { project: args.project, itemId: args["item-id"] } });
    if (!answer.exists || answer.item === undefined) {
      this.say(`${answer.id}: no such item in ${args.project}`);
      return answer;
    }
    const { item } = answer;
    const source = item.sourceRef === undefined ? "" : ` (${item.sourceRef})`;
    this.say(
      `${item.id}: ${item.kind}, ${item.authority}, ${item.confidence}, origin ${item.sourceType}${source}`,
    );
    if (answer.withheld !== undefined) this.say(`Withheld from every packet and recall: ${answer.withheld}`);
    this.say(`Evidence: ${answer.evidenceRefs.length === 0 ? "none" : answer.evidenceRefs.join(", ")}`);
    if (answer.lineage.length === 0) this.say("Lineage: none (not derived)");
    else {
      this.say(`Lineage (depth ${answer.lineageDepth}):`);
      for (const ancestor of answer.lineage) {
        const origin = ancestor.sourceType === undefined ? "" : ` origin ${ancestor.sourceType}`;
        const source = ancestor.sourceRef === undefined ? "" : ` (${ancestor.sourceRef})`;
        this.say(`  ${ancestor.id}:${ancestor.exists ? "" : " missing"}${origin}${source}`);
      }
    }
    return answer;
  }
}
