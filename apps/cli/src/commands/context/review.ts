import type { JournalReview } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, hubFlag } from "../../hub-client.js";

export default class ContextReview extends KxmCommand {
  static override summary = "Mark a journal entry of a finished run reviewed, so the wiki compiles it.";
  static override description =
    "Records that an operator reviewed the entry: who (operator:<name> with KXM_OPERATOR_TOKEN, else kxm-admin " +
    "with the admin token in KXM_AUTH_TOKEN), when, and " +
    "the evidence of the review (--evidence, optional, repeatable). Only an entry of a finished run can be " +
    "reviewed (journal_review_invalid otherwise); an entry of another project is not_found. An entry is reviewed " +
    "once: reviewing it again prints the first review and changes nothing. kxm context wiki-compile compiles " +
    "reviewed entries only. --json prints the hub's answer, {review, created}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo j_0123456789abcdef01234567",
    "<%= config.bin %> <%= command.id %> demo j_0123456789abcdef01234567 --evidence review:pr-12 --json",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
    entry: Args.string({
      description: "The journal entry's id (j_…), as the hub answered it",
      required: true,
    }),
  };
  static override flags = {
    evidence: Flags.string({
      description: "An evidence reference for the review, such as review:pr-12 (repeat the flag)",
      multiple: true,
      multipleNonGreedy: true,
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ review: JournalReview; created: boolean }> {
    const { args, flags } = await this.parse(ContextReview);
    const { client } = connectHub(flags.hub);
    const answer = await client.reviewJournal({
      params: { project: args.project, entryId: args.entry },
      body: flags.evidence === undefined ? {} : { evidenceRefs: flags.evidence },
    });
    const { review } = answer;
    this.say(
      answer.created
        ? `Reviewed ${review.entryId} as ${review.reviewedBy} at ${review.reviewedAt}`
        : `Already reviewed: ${review.entryId} by ${review.reviewedBy} at ${review.reviewedAt}; nothing changed`,
    );
    return answer;
  }
}
