import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { ProjectRecord } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { KxmCommand, UsageError } from "../../../base.js";
import { connectHub, hubFlag } from "../../../hub-client.js";

export default class HubProjectsAdd extends KxmCommand {
  static override summary =
    "Register a project with the hub, and the checkout its memory and skills come from.";
  static override description =
    "Registers project ID with the hub (admin token in KXM_AUTH_TOKEN). The hub reads the project's authored " +
    "memory (.kxm/memory) and promoted skills (.kxm/skills/promoted) from its checkout: --checkout, else the " +
    "project root found from --cwd (or the current folder), sent as an absolute path. --json prints the hub's " +
    "answer, {project: {id, checkoutRoot, createdAt}}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> demo",
    "<%= config.bin %> <%= command.id %> demo --checkout ~/src/demo --json",
  ];
  static override args = {
    id: Args.string({ description: "The project id: letters, digits, '.', '_' or '-'", required: true }),
  };
  static override flags = {
    checkout: Flags.string({
      description: "The project's checkout (default: the project root found from --cwd)",
      helpValue: "<dir>",
    }),
    hub: hubFlag,
  };

  async run(): Promise<{ project: ProjectRecord }> {
    const { args, flags } = await this.parse(HubProjectsAdd);
    const checkoutRoot = await this.checkout(flags.checkout, flags.cwd);
    const { client } = connectHub(flags.hub);
    const answer = await client.createProject({ body: { id: args.id, checkoutRoot } });
    this.say(`Registered project ${answer.project.id} (checkout ${answer.project.checkoutRoot ?? "none"})`);
    return answer;
  }

  private async checkout(given: string | undefined, cwd: string | undefined): Promise<string> {
    if (given === undefined) return this.projectRoot(cwd);
    return checkoutFolder(await this.workingFolder(cwd), given);
  }
}

/** `--checkout` resolved against the working folder; a usage error when it is not a folder. */
export async function checkoutFolder(workingFolder: string, given: string): Promise<string> {
  const folder = resolve(workingFolder, given);
  const isFolder = await stat(folder).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isFolder) throw new UsageError(`--checkout: no folder at ${given}`);
  return folder;
}
