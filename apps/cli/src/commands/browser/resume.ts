import type { SignedInCheck, TrackedSession } from "@kxm/browser";
import { Args, Flags } from "@oclif/core";
import { UsageError } from "../../base.js";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserResume extends BrowserCommand {
  static override summary = "Check the signed-in state after a takeover, then give the session back to the agent.";
  static override description =
    "Run after the operator confirmed (kxm browser confirm). Attaches to the session over CDP and checks the page: " +
    "its URL contains --expect-url, an element matches --expect-selector, the page shows --expect-text (give at " +
    "least one; all given must hold). When they hold, the session is back under agent control; when not, it goes " +
    "back to the person (human control) and the command fails with browser_verification_failed saying what did " +
    "not hold. --json prints the tracked session.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --expect-selector "[data-test=account-menu]"',
    '<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --expect-url /dashboard --expect-text "Signed in as" --json',
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id", required: true }),
  };
  static override flags = {
    "expect-url": Flags.string({ description: "Text the page's URL must contain", helpValue: "<s>" }),
    "expect-selector": Flags.string({ description: "A CSS selector an element must match", helpValue: "<css>" }),
    "expect-text": Flags.string({ description: "Text the page must show", helpValue: "<s>" }),
  };

  async run(): Promise<TrackedSession> {
    const { args, flags } = await this.parse(BrowserResume);
    const check: SignedInCheck = {
      ...(flags["expect-url"] === undefined ? {} : { url: flags["expect-url"] }),
      ...(flags["expect-selector"] === undefined ? {} : { selector: flags["expect-selector"] }),
      ...(flags["expect-text"] === undefined ? {} : { text: flags["expect-text"] }),
    };
    if (Object.keys(check).length === 0)
      throw new UsageError("give at least one of --expect-url, --expect-selector and --expect-text");
    const session = await this.withBrowser((browser) => browser.resume(args["session-id"], check));
    this.say(`The signed-in check held: session ${session.id} is back under agent control.`);
    return session;
  }
}
