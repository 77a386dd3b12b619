import type { TrackedSession } from "@kxm/browser";
import { KxmError } from "@kxm/contract";
import { Args, Flags } from "@oclif/core";
import { UsageError } from "../../base.js";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserTakeover extends BrowserCommand {
  static override summary = "Hand a session to a person (login, MFA, CAPTCHA, consent) and print the viewer link.";
  static override description =
    "Moves the session from agent control to human control with a reason, and prints the viewer link the " +
    "operator opens, never the CDP URL. While a person holds the session, KXM refuses agent actions on it " +
    "(connect, exec, and the relay of a running exec closes). The operator completes the step in the viewer, then " +
    "runs kxm browser confirm <id>; the agent checks the signed-in state with kxm browser resume. --wait <ms> " +
    "blocks until the operator confirmed (exit 0), the session was released (browser_session_released) or the " +
    "time ran out. --json prints {session, viewerUrl}; with --wait the viewer link also goes to stderr at once.";
  static override examples = [
    '<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --reason "The site asks for a one-time code"',
    '<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --reason "SSO login" --wait 600000 --json',
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id", required: true }),
  };
  static override flags = {
    reason: Flags.string({
      description: "Why a person is needed, shown to the operator and kept in the tracker",
      helpValue: "<text>",
      required: true,
    }),
    wait: Flags.integer({
      description: "Wait up to this many milliseconds for the operator's confirmation",
      helpValue: "<ms>",
      min: 1,
      max: 86_400_000,
    }),
  };

  async run(): Promise<{ session: TrackedSession; viewerUrl: string }> {
    const { args, flags } = await this.parse(BrowserTakeover);
    const id = args["session-id"];
    if (flags.reason.trim() === "") throw new UsageError("--reason: say why a person is needed");
    return this.withBrowser(async (browser) => {
      const { session, viewerUrl } = await browser.requestTakeover(id, flags.reason);
      this.say(`Session ${id} is now under human control: ${session.reason ?? flags.reason}`);
      this.say(`Open the viewer and complete the step: ${viewerUrl}`);
      this.say(`Then confirm it in a terminal: kxm browser confirm ${id}`);
      if (flags.wait === undefined) return { session, viewerUrl };
      if (this.jsonEnabled()) this.writeErrLine(`browser takeover: viewer: ${viewerUrl}`);
      this.say(`Waiting up to ${flags.wait} ms for the confirmation...`);
      const after = await browser.waitFor(id, ["VERIFY_AUTHENTICATION", "AGENT_CONTROL", "RELEASED"], {
        timeoutMs: flags.wait,
      });
      if (after.state === "RELEASED") {
        const cause = after.releaseCause === undefined ? "" : ` (${after.releaseCause})`;
        throw new KxmError("browser_session_released", `session ${id} was released during the takeover${cause}`);
      }
      this.say(`The operator confirmed. Check the signed-in state: kxm browser resume ${id} --expect-selector <css>`);
      return { session: after, viewerUrl };
    });
  }
}
