import { ITEM_KINDS, type RecallResult } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { connectHub, count, hubFlag } from "../../hub-client.js";

export default class ContextRecall extends KxmCommand {
  static override summary = "Recall records by query (metadata only, never summaries).";
  static override description =
    "Searches the project's live pool, its authored memory and its retained journal. Records whose summary or " +
    "state key contains the whole query (ignoring case) come first, then records sharing a word with it by BM25 " +
    "relevance, then by id; an empty query lists every record in id order. Each result is metadata only: id, " +
    "kind, status, authority, confidence, origin and relevance. --json prints the hub's answer, " +
    "{items, unresolvedGaps}, unchanged. Authenticates with the admin token in KXM_AUTH_TOKEN.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> demo --query "release branch"',
    '<%= config.bin %> <%= command.id %> demo --query "release branch" --json',
    "<%= config.bin %> <%= command.id %> demo --query flaky --kinds evidence,knowledge --limit 10",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    query: Flags.string({
      description: "Words or a phrase to look for (at most 500 characters)",
      required: true,
    }),
    kinds: Flags.string({
      description: "Item kinds to search, comma-separated (default: every kind)",
      options: [...ITEM_KINDS],
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ",",
    }),
    limit: Flags.integer({ description: "At most this many results, 1 to 100 (default: 25)" }),
    hub: hubFlag,
  };

  async run(): Promise<RecallResult> {
    const { args, flags } = await this.parse(ContextRecall);
    const { client } = connectHub(flags.hub);
    const answer = await client.recall({
      params: { project: args.project },
      body: {
        query: flags.query,
        ...(flags.kinds === undefined ? {} : { kinds: flags.kinds as (typeof ITEM_KINDS)[number][] }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      },
    });
    if (!this.jsonEnabled()) {
      this.say(`${count(answer.items.length, "record")} in ${args.project}`);
      for (const item of answer.items) {
        const status = item.status === undefined ? "" : ` (${item.status})`;
        const source = item.sourceRef === undefined ? "" : ` (${item.sourceRef})`;
        this.say(
          `  ${item.relevance}  ${item.id}  ${item.kind}${status}, ${item.authority}, ${item.confidence}, ` +
            `origin ${item.sourceType}${source}`,
        );
      }
      for (const gap of answer.unresolvedGaps) this.say(`Gap: ${gap}`);
    }
    return answer;
  }
}
