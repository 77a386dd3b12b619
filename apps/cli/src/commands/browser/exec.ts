import { Flags } from "@oclif/core";
import { EXIT, UsageError } from "../../base.js";
import { BrowserCommand, ownerFlag, sessionTimeoutFlag } from "../../browser-command.js";
import { browserChildEnvironment } from "../../env.js";

export default class BrowserExec extends BrowserCommand {
  static override summary = "Run a command inside a browser session, and release the session in every case.";
  static override description =
    "Creates a session (or uses --session's), starts a loopback CDP relay to it, and runs COMMAND with " +
    "KXM_BROWSER_CDP_URL (the relay: ws://127.0.0.1:<port>/<token>, which holds no key) and KXM_BROWSER_SESSION_ID " +
    "in its environment; STEEL_API_KEY is not passed on and nothing secret is put in its arguments. COMMAND is " +
    "run as given, without a shell, with this terminal's stdin, stdout and stderr. A session exec created is " +
    "released when COMMAND ends, whether it succeeded, failed, was killed, or exec itself was interrupted " +
    "(SIGINT, SIGTERM: COMMAND gets the signal first); a --session one is left open for its owner. While a " +
    "person holds the session the relay refuses new connections and closes open ones; exec refuses a session a " +
    "person holds (browser_human_control). Exits with COMMAND's exit code (128 + the signal's number when a " +
    "signal ended it). --json prints {sessionId, exitCode, released} after COMMAND's output.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> -- node e2e/login.mjs",
    "<%= config.bin %> <%= command.id %> --session 5b1f7c9e-0d7a-4f43-9a61-3c2d8e4f1a20 -- npx playwright test",
    "<%= config.bin %> <%= command.id %> --timeout 1800000 -- sh -c 'agent-browser --cdp \"$KXM_BROWSER_CDP_URL\" snapshot'",
  ];
  static override flags = {
    session: Flags.string({
      description: "Run inside this session (left open afterwards) instead of creating one",
      helpValue: "<session-id>",
    }),
    timeout: sessionTimeoutFlag,
    owner: ownerFlag,
  };
  // The command after `--` is taken as typed: oclif's argument parser would reorder repeated words.
  static override strict = false;
  static override usage = "<%= command.id %> [--session <session-id>] [--timeout <ms>] -- <command...>";

  async run(): Promise<{ sessionId: string; exitCode: number; released: boolean }> {
    const dash = this.argv.indexOf("--");
    const own = dash < 0 ? this.argv : this.argv.slice(0, dash);
    const command = dash < 0 ? [] : this.argv.slice(dash + 1);
    const { flags, argv } = await this.parse(BrowserExec, own);
    if (argv.length > 0)
      throw new UsageError(`put the command after --: kxm browser exec -- ${argv.join(" ")}`);
    if (command.length === 0) throw new UsageError("give the command to run after --: kxm browser exec -- <command...>");
    if (flags.session !== undefined && flags.timeout !== undefined)
      throw new UsageError("--timeout applies to a session exec creates; --session names an existing one");
    const { runInSession } = await import("@kxm/browser");
    const result = await this.withBrowser(
      (browser) =>
        runInSession(browser, flags.session, command, {
          env: browserChildEnvironment(),
          ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        }),
      { owner: flags.owner },
    );
    const outcome = { sessionId: result.sessionId, exitCode: result.exitCode, released: result.released };
    if (this.jsonEnabled()) this.logJson(outcome);
    else
      this.writeErrLine(
        `browser exec: ${command[0]} exited with ${result.exitCode}; session ${result.sessionId} ` +
          (result.released ? "released" : "left open"),
      );
    if (result.exitCode !== EXIT.ok) return this.exit(result.exitCode);
    return outcome;
  }
}
