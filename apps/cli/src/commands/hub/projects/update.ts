import type { ProjectRecord } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";
import { checkoutFolder } from "./add.js";

export default class HubProjectsUpdate extends KxmCommand {
  static override summary = "Change the checkout a registered project's memory and skills come from.";
  static override description =
    "Sets the checkout of project ID (admin token in KXM_AUTH_TOKEN) to --checkout (relative to --cwd), sent as " +
    "an absolute path; the hub checks it is an existing folder and, from the next request on, reads the " +
    "project's authored memory and promoted skills from it. Stored records and agent keys are unchanged. --json " +
    "prints the hub's answer, {project: {id, checkoutRoot, createdAt}}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo --checkout ~/src/demo",
    "<%= config.bin %> <%= command.id %> demo --checkout . --json",
  ];
  static override args = {
    id: Args.string({ description: "The project id", required: true }),
  };
  static override flags = {
    checkout: Flags.string({
      description: "The project's new checkout; it must exist",
      helpValue: "<dir>",
      required: true,
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ project: ProjectRecord }> {
    const { args, flags } = await this.parse(HubProjectsUpdate);
    const checkoutRoot = await checkoutFolder(await this.workingFolder(flags.cwd), flags.checkout);
    const { client } = connectHub(flags.hub);
    const answer = await client.updateProject({ params: { project: args.id }, body: { checkoutRoot } });
    this.say(`Updated project ${answer.project.id} (checkout ${answer.project.checkoutRoot ?? "none"})`);
    return answer;
  }
}
