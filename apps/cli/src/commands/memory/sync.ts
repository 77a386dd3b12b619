import type { SyncAction } from "@kxm/memory-git";
import { Flags } from "@oclif/core";
import { KxmCommand } from "../../base.js";

interface SyncResult {
  dryRun: boolean;
  files: Array<{ file: string; action: SyncAction }>;
  block: string;
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
    "sync before anything is written. Facts that have expired, or whose failing check withholds them, are left out.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> --dry-run",
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];
  static override flags = {
    "dry-run": Flags.boolean({ description: "Report what would change; write nothing", default: false }),
  };

  async run(): Promise<SyncResult> {
    const { flags } = await this.parse(MemorySync);
    const root = await this.projectRoot(flags.cwd);
    const { syncInstructionFiles } = await import("@kxm/memory-git");
    const dryRun = flags["dry-run"];
    const { files, block } = await syncInstructionFiles(root, { dryRun, now: new Date() });
    const words = dryRun ? FUTURE : PAST;
    for (const { file, action } of files) this.say(`${file}: ${words[action]}`);
    return { dryRun, files, block };
  }
}
