import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, count, hubFlag } from "../../../hub-client.js";

interface Removed {
  project: string;
  items: number;
  runs: number;
  journalEntries: number;
  agentKeys: number;
}

export default class HubProjectsRemove extends KxmCommand {
  static override summary = "Remove a project from the hub; with --force, its records and keys too.";
  static override description =
    "Removes project ID from the hub (admin token in KXM_AUTH_TOKEN). Without --force, a project that still holds " +
    "stored items (state values, proposals, episodes), runs or an active agent key is refused with " +
    "project_not_empty and nothing changes. With --force, all of them are deleted with it, in one transaction: " +
    "items and proposal records, runs with their journal entries and reviews, and every agent key of the project. " +
    "The checkout and its Git-authored memory and skills are never touched. --json prints the hub's answer, " +
    "{removed: {project, items, runs, journalEntries, agentKeys}}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --force --json",
  ];
  static override args = {
    id: Args.string({ description: "The project id", required: true }),
  };
  static override flags = {
    force: Flags.boolean({
      description: "Also delete the project's items, runs, journal and agent keys",
      default: false,
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ removed: Removed }> {
    const { args, flags } = await this.parse(HubProjectsRemove);
    const { client } = connectHub(flags.hub);
    const answer = await client.removeProject({
      params: { project: args.id },
      query: { force: flags.force ? "true" : "false" },
    });
    const { removed } = answer;
    this.say(
      `Removed project ${removed.project} with ${count(removed.items, "item")}, ${count(removed.runs, "run")}, ` +
        `${count(removed.journalEntries, "journal entry", "journal entries")} and ${count(removed.agentKeys, "agent key")}`,
    );
    return answer;
  }
}
