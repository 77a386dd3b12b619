import type { SteelSession, TrackedSession } from "@kxm/browser";
import { BrowserCommand, duration } from "../../browser-command.js";

type Row = { id: string; tracked?: TrackedSession; remote?: SteelSession };

export default class BrowserList extends BrowserCommand {
  static override summary = "List the sessions on the Steel deployment and the ones KXM tracks.";
  static override description =
    "One line per session, sorted by id: the server's status (or gone, for a tracked session the server no longer " +
    "lists), the control state when KXM tracks it (untracked otherwise: created by someone else, or elsewhere), how " +
    "long it has been idle, and its owner. Released sessions the server no longer lists are left out; kxm browser " +
    "status <id> still shows one. --json prints {sessions: [{id, tracked?, remote?}]}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --json",
  ];

  async run(): Promise<{ sessions: Row[] }> {
    await this.parse(BrowserList);
    const all = await this.withBrowser((browser) => browser.list());
    const sessions = all.filter((row) => row.remote !== undefined || row.tracked?.state !== "RELEASED");
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
