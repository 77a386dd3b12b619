import type { WithheldCounts } from "@kxm/memory-git";
import { KxmCommand } from "../../base.js";
import { hubWithheld, withheldFlags, withheldLine } from "../../memory-withheld.js";

interface BriefResult {
  count: number;
  text: string;
  facts: Array<{ id: string; scope: string; kind: string; summary: string; file: string }>;
  /** The facts left out because the hub withholds them, per reason; only when a hub was asked. */
  withheld?: WithheldCounts;
}

export default class MemoryBrief extends KxmCommand {
  static override summary = "Print the active memory facts as agents see them.";
  static override description =
    "Prints the brief that the Claude Code SessionStart hook adds to a session: one line per active fact in " +
    ".kxm/memory/ (or says there is none). A fact that has expired, or whose failing check withholds it, is left " +
    "out, as the hub leaves it out. With a hub configured (--hub or KXM_HUB_URL), the facts it withholds (revoked, " +
    "forgotten) are left out too, and a last line counts them per reason; a hub that cannot be reached or refuses " +
    "fails the command. A malformed memory file fails the command.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
    "<%= config.bin %> <%= command.id %> --hub http://127.0.0.1:7420 --project demo",
  ];
  static override flags = withheldFlags;

  async run(): Promise<BriefResult> {
    const { flags } = await this.parse(MemoryBrief);
    const root = await this.projectRoot(flags.cwd);
    const { defaultProjectId, deliverableFacts, renderBrief, withoutWithheld } = await import(
      "@kxm/memory-git"
    );
    const byHub = await hubWithheld(flags.hub, flags.project ?? defaultProjectId(root));
    const deliverable = await deliverableFacts(root, new Date());
    const { facts, withheld } = withoutWithheld(deliverable, byHub ?? new Map());
    const text = renderBrief(facts);
    this.say(text);
    const line = withheldLine(withheld);
    if (line !== undefined) this.say(line);
    return {
      count: facts.length,
      text,
      facts: facts.map(({ id, scope, kind, summary, file }) => ({ id, scope, kind, summary, file })),
      ...(byHub === undefined ? {} : { withheld }),
    };
  }
}
