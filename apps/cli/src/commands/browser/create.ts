import type { TrackedSession } from "@kxm/browser";
import { BrowserCommand, ownerFlag, sessionTimeoutFlag } from "../../browser-command.js";

export default class BrowserCreate extends BrowserCommand {
  static override summary = "Create a Steel browser session for one task and track it.";
  static override description =
    "Creates a session on the Steel deployment at STEEL_API_URL (the key from STEEL_API_KEY, else the pass-cli " +
    "item STEEL_PASS_VAULT / STEEL_PASS_ITEM names), reads it back to check it is live, and records it in the " +
    "tracker under agent control. Prints the session id and the viewer link a person opens to watch or take over; " +
    "never the CDP URL (see kxm browser connect and kxm browser exec). When the server released a session KXM " +
    "tracked to make room (open-source Steel keeps one at a time), a warning says so on stderr. Release the session " +
    "when the task ends, even when it failed: kxm browser release. --json prints {session, viewerUrl, warnings}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --timeout 1800000 --owner my-project",
    "<%= config.bin %> <%= command.id %> --json",
  ];
  static override flags = { timeout: sessionTimeoutFlag, owner: ownerFlag };

  async run(): Promise<{ session: TrackedSession; viewerUrl: string; warnings: string[] }> {
    const { flags } = await this.parse(BrowserCreate);
    const created = await this.withBrowser(
      (browser) => browser.create(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
      { owner: flags.owner },
    );
    const { session, viewerUrl, warnings } = created;
    this.say(`Created session ${session.id} (timeout ${session.timeoutMs} ms), under agent control.`);
    this.say(`Viewer: ${viewerUrl}`);
    this.say(`Release it when the task ends: kxm browser release ${session.id}`);
    if (!this.jsonEnabled()) for (const warning of warnings) this.writeErrLine(`browser create: warning: ${warning}`);
    return created;
  }
}
