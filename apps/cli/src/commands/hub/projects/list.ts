import type { ProjectRecord } from "@kxm/contract";
import { KxmCommand } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubProjectsList extends KxmCommand {
  static override summary = "List the projects the hub serves.";
  static override description =
    "Lists every registered project with its checkout and when it was registered (admin token in " +
    "KXM_AUTH_TOKEN). --json prints the hub's answer, {projects: [{id, checkoutRoot, createdAt}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];
  static override flags = { hub: hubFlag };

  async run(): Promise<{ projects: ProjectRecord[] }> {
    const { flags } = await this.parse(HubProjectsList);
    const { client } = connectHub(flags.hub);
    const answer = await client.listProjects({});
    if (answer.projects.length === 0) this.say("No projects.");
    for (const project of answer.projects) {
      this.say(`${project.id}  ${project.checkoutRoot ?? "(no checkout)"}  ${project.createdAt}`);
    }
    return answer;
  }
}
