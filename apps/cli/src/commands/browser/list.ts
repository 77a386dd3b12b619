import type { SteelSession, TrackedSession } from "@kxm/browser";
import { Flags } from "@oclif/core";
import { BrowserCommand, duration } from "../../browser-command.js";

type Row = { id: string; tracked?: TrackedSession; remote?: SteelSession };

export default class BrowserList extends BrowserCommand {
  static override summary = "List the sessions on the Steel deployment and the ones KXM tracks.";
  static override description =
    "One line per session, sorted by id: the server's status (or gone, for a tracked session the server no longer " +
    "lists), the control state when KXM tracks it (untracked otherwise: created by someone else, or elsewhere), how " +
    "long it has been idle, and its owner. Sessions that ended (released, failed, or gone from the server, and " +
    "released in the tracker) are left out unless --all is given. --json prints {sessions: [{id, tracked?, remote?}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --all --json",
  ];
  static override flags = {
    all: Flags.boolean({ description: "Also list released and ended sessions" }),
  };

  async run(): Promise<{ sessions: Row[] }> {
    const { flags } = await this.parse(BrowserList);
    const all = await this.withBrowser((browser) => browser.list());
    const sessions = flags.all ? all : all.filter(current);
    if (sessions.length === 0) this.say("No sessions.");
    const now = Date.now();
    for (const row of sessions) {
      const server = row.remote === undefined ? "gone" : (row.remote.status ?? "unknown");
      const tracked = row.tracked;
      const control = tracked === undefined ? "untracked" : tracked.state;
      const idle = tracked === undefined ? "" : `  idle ${duration(now - tracked.lastActivityAt)}`;
      const owner = tracked?.owner === undefined ? "" : `  owner ${tracked.owner}`;
      this.say(`${row.id}  ${server}  ${control}${idle}${owner}`);
    }
    return { sessions };
  }
}

/** The server's statuses of a session that has ended. */
const ENDED = new Set(["released", "failed", "expired", "closed"]);

/** Whether a row is worth listing by default: live on the server, or tracked and not released. */
function current(row: Row): boolean {
  const live = row.remote !== undefined && !ENDED.has(row.remote.status ?? "live");
  return live || (row.tracked !== undefined && row.tracked.state !== "RELEASED");
}
