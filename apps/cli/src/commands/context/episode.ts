import type { ContextItem } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { clip, connectHub, hubFlag } from "../../hub-client.js";

export default class ContextEpisode extends KxmCommand {
  static override summary = "List the episodes of finished runs, newest first, a page at a time.";
  static override description =
    "Every finished workflow run yields one episode item (the run, its outcome, the failing step and the " +
    "lessons). Lists them newest first, at most --limit per page (default: the hub's page size, at most 50); when " +
    "more remain, the last line gives the --cursor for the next page. --run limits the list to one run. --json " +
    "prints the hub's answer, {items, nextCursor?}, unchanged. Sends KXM_AGENT_KEY when set (the agent reads its " +
    "own project), else KXM_OPERATOR_TOKEN, else the admin token in KXM_AUTH_TOKEN.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --run run-42 --json",
    "<%= config.bin %> <%= command.id %> demo --limit 10 --cursor <next-cursor>",
  ];
  static override args = {
    project: Args.string({ description: "The project id, such as demo", required: true }),
  };
  static override flags = {
    run: Flags.string({ description: "Only the episode of this run" }),
    limit: Flags.integer({ description: "Episodes per page, 1 to 50" }),
    cursor: Flags.string({ description: "The nextCursor of the previous page" }),
    hub: hubFlag,
  };

  async run(): Promise<{ items: ContextItem[]; nextCursor?: string | undefined }> {
    const { args, flags } = await this.parse(ContextEpisode);
    const { client } = connectHub(flags.hub);
    const answer = await client.episodes({
      params: { project: args.project },
      query: {
        ...(flags.run === undefined ? {} : { runId: flags.run }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
      },
    });
    if (answer.items.length === 0) this.say("No episodes.");
    for (const item of answer.items) {
      this.say(`${item.observedAt ?? item.validFrom ?? "-"}  ${item.id}  ${clip(item.summary)}`);
    }
    if (answer.nextCursor !== undefined) {
      const run = flags.run === undefined ? "" : ` --run ${flags.run}`;
      const limit = flags.limit === undefined ? "" : ` --limit ${flags.limit}`;
      this.say(`More: kxm context episode ${args.project}${run}${limit} --cursor ${answer.nextCursor}`);
    }
    return answer;
  }
}
