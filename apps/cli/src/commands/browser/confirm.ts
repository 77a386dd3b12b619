import type { TrackedSession } from "@kxm/browser";
import { Args } from "@oclif/core";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserConfirm extends BrowserCommand {
  static override summary = "The operator's word that the login, MFA or consent step is done.";
  static override description =
    "Run by the person holding the session, after completing the step in the viewer: moves it from human control " +
    "to verifying authentication. The agent still cannot act blindly: it checks the signed-in state with " +
    "kxm browser resume before it continues. Any other state fails with browser_takeover_invalid. " +
    "--json prints the tracked session.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20",
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --json",
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id", required: true }),
  };

  async run(): Promise<TrackedSession> {
    const { args } = await this.parse(BrowserConfirm);
    const session = await this.withBrowser((browser) => browser.confirm(args["session-id"]));
    this.say(`Confirmed: session ${session.id} is now verifying authentication.`);
    this.say(`The agent checks the signed-in state: kxm browser resume ${session.id} --expect-selector <css>`);
    return session;
  }
}
