import type { MemoryScope } from "@kxm/memory-git";
import { Args, Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

export default class MemoryNote extends KxmCommand {
  static override summary = "Record a memory candidate for review.";
  static override description =
    "Writes .kxm/memory/candidates/cand_<scope>_<hex>.md at evidence authority. Candidates are never loaded and " +
    "never change the memory revision: a reviewer promotes one by moving it into .kxm/memory/ in a pull request. " +
    "Secrets in the summary are redacted before anything is written. Noting the same summary twice writes nothing.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> "Use pnpm, not npm, in this repository" --kind convention',
    '<%= config.bin %> <%= command.id %> "Deploys freeze on Fridays" --scope operator --source docs/release.md --json',
  ];
  static override args = {
    summary: Args.string({
      description: "The fact, in one sentence (at most 4,000 characters)",
      required: true,
    }),
  };
  static override flags = {
    kind: Flags.string({
      description: "A free-form label such as convention or decision",
      default: "learning",
    }),
    scope: Flags.string({
      description: "Who the fact is for",
      options: ["agent", "project", "run", "operator"],
      default: "project",
    }),
    source: Flags.string({ description: "Where the fact comes from: a PR, a document path or a URL" }),
  };

  async run(): Promise<{ id: string; file: string; created: boolean }> {
    const { args, flags } = await this.parse(MemoryNote);
    const root = await this.projectRoot(flags.cwd);
    const { noteCandidate } = await import("@kxm/memory-git");
    const result = await noteCandidate(root, {
      summary: args.summary,
      kind: flags.kind,
      scope: flags.scope as MemoryScope,
      ...(flags.source === undefined ? {} : { source: flags.source }),
    });
    const seen = result.file.includes("/candidates/rejected/") ? "Already rejected" : "Already noted";
    this.say(result.created ? `Noted candidate ${result.file}` : `${seen}: ${result.file}`);
    return result;
  }
}
