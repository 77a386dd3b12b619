import { KxmCommand } from "../../base.js";

interface BriefResult {
  count: number;
  text: string;
  facts: Array<{ id: string; scope: string; kind: string; summary: string; file: string }>;
}

export default class MemoryBrief extends KxmCommand {
  static override summary = "Print the active memory facts as agents see them.";
  static override description =
    "Prints the brief that the Claude Code SessionStart hook adds to a session: one line per active fact in " +
    ".kxm/memory/ (or says there is none). A fact that has expired, or whose failing check withholds it, is left " +
    "out, as the hub leaves it out. A malformed memory file fails the command.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<BriefResult> {
    const { flags } = await this.parse(MemoryBrief);
    const root = await this.projectRoot(flags.cwd);
    const { deliverableFacts, renderBrief } = await import("@kxm/memory-git");
    const facts = await deliverableFacts(root, new Date());
    const text = renderBrief(facts);
    this.say(text);
    return {
      count: facts.length,
      text,
      facts: facts.map(({ id, scope, kind, summary, file }) => ({ id, scope, kind, summary, file })),
    };
  }
}
