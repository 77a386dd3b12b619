import type { DispatchManifest } from "@kxm/runtime-dispatch";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { manifestLines } from "../../run-output.js";

export default class RunManifest extends KxmCommand {
  static override summary = "Show what was injected into a run's prompts, and why.";
  static override description =
    "Prints the context manifest of each dispatched step of the run (the latest attempt), or of one step with " +
    "--step: the packet id, agent and role, the pinned memory revision, every delivered item with its section, " +
    "characters and arbiter score, every gap, and the prompt's token estimate. --json prints the manifest with " +
    "--step, else {manifests: [...]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> run_3f2a9c1d7e44",
    "<%= config.bin %> <%= command.id %> run_3f2a9c1d7e44 --step implement --json",
  ];
  static override args = {
    "run-id": Args.string({ description: "The run's id", required: true }),
  };
  static override flags = {
    step: Flags.string({ description: "Only this step's manifest" }),
  };

  async run(): Promise<DispatchManifest | { manifests: DispatchManifest[] }> {
    const { args, flags } = await this.parse(RunManifest);
    const root = await this.projectRoot(flags.cwd);
    const { readManifests } = await import("@kxm/runtime-dispatch");
    const manifests = await readManifests(root, args["run-id"], flags.step);
    if (manifests.length === 0) this.say("No step of this run has been dispatched.");
    for (const manifest of manifests) for (const line of manifestLines(manifest)) this.say(line);
    return flags.step === undefined ? { manifests } : manifests[0]!;
  }
}
