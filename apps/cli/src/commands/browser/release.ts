import type { TrackedSession } from "@kxm/browser";
import { Args, Flags } from "@oclif/core";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserRelease extends BrowserCommand {
  static override summary = "Release a session: Steel ends its browser and KXM marks it released.";
  static override description =
    "Releases the session on Steel and marks it RELEASED in the tracker. Release every session when its task " +
    "ends, even when the task failed: disconnecting a client does not release it. By default the agent releases; " +
    "--operator releases as the person holding it (abandoning a takeover). A session already released fails with " +
    "browser_session_released; one neither the server nor the tracker knows with browser_session_not_found. " +
    "--json prints the tracked session.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20",
    "<%= config.bin %> <%= command.id %> 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 --operator --json",
  ];
  static override args = {
    "session-id": Args.string({ description: "The session's id", required: true }),
  };
  static override flags = {
    operator: Flags.boolean({
      description: "Release as the operator who holds the session (abandons a takeover), not as the agent",
    }),
  };

  async run(): Promise<TrackedSession> {
    const { args, flags } = await this.parse(BrowserRelease);
    const released = await this.withBrowser((browser) =>
      browser.release(args["session-id"], flags.operator ? "operator" : "agent"),
    );
    this.say(`Released session ${released.id}.`);
    return released;
  }
}
