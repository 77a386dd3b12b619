import type { SteelSession, TrackedSession } from "@kxm/browser";
import { Args } from "@oclif/core";
import { BrowserCommand, remoteWords, trackedLines } from "../../browser-command.js";

export default class BrowserStatus extends BrowserCommand {
  static override summary = "Show one session: what Steel says of it and who controls it.";
  static override description =
    "Asks Steel for the session and reads the tracker: the server's status (live, released, or not on the " +
    "server), and for a session KXM tracks its control state (agent control, human control, verifying " +
    "authentication, released), the reason of its last takeover, its owner, when it was created and last used. " +
    "Fails with browser_session_not_found when neither the server nor the tracker knows the id. " +
    "--json prints {id, tracked?, remote?, viewerUrl}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20",
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --json",
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id, as kxm browser create printed it", required: true }),
  };

  async run(): Promise<{ id: string; tracked?: TrackedSession; remote?: SteelSession; viewerUrl: string }> {
    const { args } = await this.parse(BrowserStatus);
    const id = args["session-id"];
    const status = await this.withBrowser((browser) => browser.status(id));
    this.say(`Session ${id}`);
    this.say(`  server: ${remoteWords(status.remote)}`);
    if (status.tracked === undefined) this.say("  control: not tracked by KXM (it did not create it here)");
    else for (const line of trackedLines(status.tracked, Date.now())) this.say(line);
    this.say(`  viewer: ${status.viewerUrl}`);
    return { id, ...status };
  }
}
