import { KxmCommand } from "../../base.js";

export default class MemoryRevision extends KxmCommand {
  static override summary = "Print the memory revision: a hash over memory and promoted skills.";
  static override description =
    "Prints ctxrev_ followed by the SHA-256 over every file under .kxm/memory (candidates excluded) and " +
    ".kxm/skills/promoted. A Runtime run pins it when it starts; any change to memory or promoted skills changes it.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<{ revision: string }> {
    const { flags } = await this.parse(MemoryRevision);
    const root = await this.projectRoot(flags.cwd);
    const { computeMemoryRevision } = await import("@kxm/memory-git");
    const revision = await computeMemoryRevision(root);
    this.say(revision);
    return { revision };
  }
}
