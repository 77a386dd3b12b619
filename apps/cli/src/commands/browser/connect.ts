import type { ControlState } from "@kxm/browser";
import { Args, Flags } from "@oclif/core";
import { BrowserCommand, STATE_WORDS } from "../../browser-command.js";

type ConnectInfo =
  | { id: string; state?: ControlState; viewerUrl: string; attach: string }
  | { cdpUrl: string };

export default class BrowserConnect extends BrowserCommand {
  static override summary =
    "Say how to attach an automation client to a session (its CDP URL only on request).";
  static override description =
    "Checks that the agent may drive the session (refused with browser_human_control while a person holds it, " +
    "browser_session_released once it is released), then prints its viewer link and how to attach a client: " +
    "kxm browser exec --session <id> -- <command>, which hands the command KXM_BROWSER_CDP_URL, a loopback relay " +
    "that holds no key. --print-cdp-url prints the session's CDP URL alone on stdout instead: it carries the Steel " +
    "API key, so treat it as a secret (never in a prompt, a chat, an issue or a log). --json prints " +
    "{id, state, viewerUrl, attach}, or {cdpUrl} with --print-cdp-url.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20",
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --print-cdp-url | node attach.mjs",
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id", required: true }),
  };
  static override flags = {
    "print-cdp-url": Flags.boolean({
      description: "Print the CDP URL (it holds the API key: a secret) alone on stdout",
    }),
  };

  async run(): Promise<ConnectInfo> {
    const { args, flags } = await this.parse(BrowserConnect);
    const id = args["session-id"];
    return this.withBrowser(async (browser) => {
      // The same check whether or not the URL is printed: a person holding the session gets no second controller.
      const cdpUrl = await browser.cdpUrl(id);
      if (flags["print-cdp-url"]) {
        if (!this.jsonEnabled()) process.stdout.write(`${cdpUrl}\n`);
        return { cdpUrl };
      }
      const { tracked } = await browser.status(id);
      const attach = `kxm browser exec --session ${id} -- <command...>`;
      this.say(
        `Session ${id}${tracked === undefined ? " (not tracked)" : `: ${STATE_WORDS[tracked.state]}`}.`,
      );
      this.say(`Viewer: ${browser.viewerUrl(id)}`);
      this.say("Attach a client (it gets KXM_BROWSER_CDP_URL, a loopback relay that holds no key):");
      this.say(`  ${attach}`);
      this.say(`The CDP URL itself holds the API key; print it only when a tool needs it: --print-cdp-url`);
      return {
        id,
        ...(tracked === undefined ? {} : { state: tracked.state }),
        viewerUrl: browser.viewerUrl(id),
        attach,
      };
    });
  }
}
