import type { SweepEntry, SweepReport } from "@kxm/browser";
import { Flags } from "@oclif/core";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserSweep extends BrowserCommand {
  static override summary = "Release orphaned sessions: untracked ones and tracked ones left idle.";
  static override description =
    "Compares the server's sessions with the tracker's: an untracked session older than --idle is released; one " +
    "with no creation time is kept (it cannot be attributed); a tracked session a person holds is kept; a tracked " +
    "one past the timeout it was created with is released (open-source Steel ignores that timeout); a tracked " +
    "one idle longer than --idle is released; a tracked one the server no longer lists is marked released. One " +
    "line per session, sorted by id, with what was done and why. The first release is a probe: the server is " +
    "read again after it, and when it changed another session too (open-source Steel ignores the id), the sweep " +
    "stops with browser_release_mismatch; the rest are released eight at a time and checked by one more read. --dry-run lists the plan and releases nothing. --json prints " +
    "the report.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> --dry-run",
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --idle 1800000 --json",
  ];
  static override flags = {
    "dry-run": Flags.boolean({ description: "List what the sweep would do; release nothing" }),
    idle: Flags.integer({
      description: "How long a session may sit idle (untracked: since its creation) before it is swept",
      helpValue: "<ms>",
      default: 600_000,
      min: 1,
      max: 604_800_000,
    }),
  };

  async run(): Promise<SweepReport> {
    const { flags } = await this.parse(BrowserSweep);
    const dryRun = flags["dry-run"] === true;
    const report = await this.withBrowser((browser) => browser.sweep({ dryRun, idleMs: flags.idle }));
    const words = dryRun ? DRY_WORDS : DONE_WORDS;
    if (report.entries.length === 0) this.say("No sessions to sweep.");
    for (const entry of report.entries) {
      const done =
        dryRun ||
        entry.action === "keep" ||
        (entry.action === "release" ? report.released : report.markedReleased).includes(entry.id);
      this.say(`${done ? words[entry.action] : "left"} ${entry.id}: ${entry.reason}`);
    }
    const count = (action: SweepEntry["action"]) =>
      report.entries.filter((entry) => entry.action === action).length;
    this.say(
      dryRun
        ? `Dry run: ${count("release")} to release, ${count("mark_released")} to mark released, ` +
            `${count("keep")} kept; nothing was released.`
        : `Released ${report.released.length}, marked ${report.markedReleased.length} released, ` +
            `kept ${count("keep")}.`,
    );
    return report;
  }
}

const DRY_WORDS: Record<SweepEntry["action"], string> = {
  release: "would release",
  keep: "keep",
  mark_released: "would mark released",
};

const DONE_WORDS: Record<SweepEntry["action"], string> = {
  release: "released",
  keep: "kept",
  mark_released: "marked released",
};
