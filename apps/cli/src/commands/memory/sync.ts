import type { SyncAction, WithheldCounts } from "@kxm/memory-git";
import { Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";
import { hubWithheld, withheldFlags, withheldLine } from "../../memory-withheld.js";

interface SyncResult {
  dryRun: boolean;
  files: Array<{ file: string; action: SyncAction }>;
  block: string;
  /** The facts left out because the hub withholds them, per reason; only when a hub was asked. */
  withheld?: WithheldCounts;
}

const PAST: Record<SyncAction, string> = {
  updated: "updated",
  appended: "appended the block",
  unchanged: "unchanged",
};
const FUTURE: Record<SyncAction, string> = {
  updated: "would update",
  appended: "would append the block",
  unchanged: "unchanged",
};

export default class MemorySync extends KxmCommand {
  static override summary = "Write the memory block into AGENTS.md, CLAUDE.md and GEMINI.md.";
  static override description =
    "Updates the block between <!-- kxm:memory:start --> and <!-- kxm:memory:end --> in whichever of AGENTS.md, " +
    "CLAUDE.md and GEMINI.md exist at the project root, and appends it to a file without markers. It never " +
    "creates a file and changes nothing outside the markers. Malformed markers in any file refuse the whole " +
    "sync before anything is written. Facts that have expired, or whose failing check withholds them, are left out. " +
    "With a hub configured (--hub or KXM_HUB_URL), the facts it withholds (revoked, forgotten) are left out too, " +
    "and a last line counts them per reason; a hub that cannot be reached or refuses fails the sync, which then " +
    "writes nothing.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> --dry-run",
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
    "<%= config.bin %> <%= command.id %> --hub http://127.0.0.1:7420 --project demo",
  ];
  static override flags = {
    "dry-run": Flags.boolean({ description: "Report what would change; write nothing", default: false }),
    ...withheldFlags,
  };

  async run(): Promise<SyncResult> {
    const { flags } = await this.parse(MemorySync);
    const root = await this.projectRoot(flags.cwd);
    const { defaultProjectId, syncInstructionFiles } = await import("@kxm/memory-git");
    const byHub = await hubWithheld(flags.hub, flags.project ?? defaultProjectId(root));
    const dryRun = flags["dry-run"];
    const { files, block, withheld } = await syncInstructionFiles(root, {
      dryRun,
      now: new Date(),
      ...(byHub === undefined ? {} : { withheld: byHub }),
    });
    const words = dryRun ? FUTURE : PAST;
    for (const { file, action } of files) this.say(`${file}: ${words[action]}`);
    const line = withheldLine(withheld);
    if (line !== undefined) this.say(line);
    return { dryRun, files, block, ...(byHub === undefined ? {} : { withheld }) };
  }
}
