import { AUTHORITIES, type Authority, CONFIDENCES, type Confidence } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextPropose extends KxmCommand {
  static override summary = "Propose a value for a temporal state key.";
  static override description =
    "Records a proposal for KEY with its evidence. Origin follows the credential the CLI sends, chosen in this " +
    "order: KXM_AGENT_KEY (the agent proposes: peer origin, at most evidence authority, its own project only), " +
    "else KXM_OPERATOR_TOKEN (the operator, recorded as operator:<name>: human origin, up to policy), else " +
    "KXM_AUTH_TOKEN (kxm-admin: human origin, up to policy). The author may not promote their own proposal: a " +
    "second operator, or the admin token for an operator's proposal, promotes it. A proposal is inert until " +
    "promoted. --json prints the hub's answer, {proposalId}.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo --key release.branch --summary "Releases are cut from the main branch" --authority evidence --confidence verified --evidence pr:12',
    '<%= config.bin %> <%= command.id %> demo --key deploy.window --summary "Deploys run Tuesday to Thursday" --authority policy --confidence verified --evidence doc:release-policy --evidence review:ops-3 --json',
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    key: Flags.string({
      description: "The state key, such as release.branch (at most 200 characters)",
      required: true,
    }),
    summary: Flags.string({
      description: "The proposed value, in one sentence (at most 4,000 characters)",
      required: true,
    }),
    authority: Flags.string({
      description: "The authority it claims",
      options: [...AUTHORITIES],
      required: true,
    }),
    confidence: Flags.string({
      description: "How sure the evidence makes it",
      options: [...CONFIDENCES],
      required: true,
    }),
    evidence: Flags.string({
      description: "An evidence reference such as pr:12 (1 to 32; repeat the flag)",
      multiple: true,
      multipleNonGreedy: true,
      required: true,
    }),
    supersedes: Flags.string({
      description: "The id of an item this value replaces (repeat the flag for more)",
      multiple: true,
      multipleNonGreedy: true,
    }),
    "expires-at": Flags.string({
      description: "When the value stops holding (ISO 8601 with a zone): withheld from packets from then on",
    }),
    "review-by": Flags.string({
      description:
        "When the value is due for review (ISO 8601 with a zone): still served, listed as review_due",
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ proposalId: string }> {
    const { args, flags } = await this.parse(ContextPropose);
    const { client } = connectHub(flags.hub);
    const answer = await client.proposeState({
      params: { project: args.project },
      body: {
        key: flags.key,
        summary: flags.summary,
        authority: flags.authority as Authority,
        confidence: flags.confidence as Confidence,
        evidenceRefs: flags.evidence,
        ...(flags.supersedes === undefined ? {} : { supersedes: flags.supersedes }),
        ...(flags["expires-at"] === undefined ? {} : { expiresAt: flags["expires-at"] }),
        ...(flags["review-by"] === undefined ? {} : { reviewBy: flags["review-by"] }),
      },
    });
    this.say(`Proposed ${answer.proposalId} for ${flags.key}`);
    return answer;
  }
}
