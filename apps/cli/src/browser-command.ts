import type { Browser, ControlState, SteelConfig, SteelSession, TrackedSession } from "@kxm/browser";
import { Flags } from "@oclif/core";
import { KxmCommand } from "./base.js";

// What every `kxm browser` command shares: the Steel configuration from the environment (@kxm/browser's env.ts
// reads the STEEL_* and KXM_BROWSER_* variables and resolveConfig validates them: STEEL_API_URL, STEEL_UI_URL,
// STEEL_API_KEY or a pass-cli lookup of the operator's own vault item), one tracker per call, closed on the way out, and a last guard that keeps the key out of any
// failure line. @kxm/browser is imported when a command runs, never at start-up.

/** `--timeout <ms>`: how long Steel keeps a session this command creates. */
export const sessionTimeoutFlag = Flags.integer({
  description:
    "How long Steel keeps the session, in milliseconds, before it ends it (default 300000: 5 minutes)",
  helpValue: "<ms>",
  min: 1000,
  max: 86_400_000,
});

/** `--owner <label>`: who the tracker records as the session's owner (a project, an agent id). */
export const ownerFlag = Flags.string({
  description: "A label the tracker records as the session's owner, such as the project or the agent's id",
  helpValue: "<label>",
});

export abstract class BrowserCommand extends KxmCommand {
  /** The Steel key once resolved, so that a failure line can be scrubbed of it whatever produced it. */
  private steelKey: string | undefined;

  /** The validated Steel configuration; `browser_not_configured` (or `browser_key_lookup_failed`) otherwise. */
  protected async steelConfig(): Promise<SteelConfig> {
    const { passCliLookup, readBrowserEnv, resolveConfig } = await import("@kxm/browser");
    const config = await resolveConfig(readBrowserEnv(), passCliLookup);
    this.steelKey = config.key;
    return config;
  }

  /** Runs `work` with a Browser (client, tracker, takeover rules) and closes its tracker afterwards. */
  protected async withBrowser<T>(
    work: (browser: Browser, config: SteelConfig) => Promise<T>,
    options: { owner?: string | undefined } = {},
  ): Promise<T> {
    const config = await this.steelConfig();
    const { openBrowser } = await import("@kxm/browser");
    const browser = openBrowser(config, options.owner === undefined ? {} : { owner: options.owner });
    try {
      return await work(browser, config);
    } finally {
      browser.close();
    }
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    // @kxm/browser builds its messages from origins and paths, never from a URL that holds the key; this is the
    // last guard, for text it did not write (a message from Node or a dependency).
    if (this.steelKey !== undefined && error instanceof Error && error.message.includes(this.steelKey)) {
      const { redactSecret } = await import("@kxm/browser");
      error.message = redactSecret(error.message, this.steelKey);
    }
    return super.catch(error);
  }
}

/** A tracked session's control state in words, for human output. */
export const STATE_WORDS: Record<ControlState, string> = {
  AGENT_CONTROL: "agent control",
  HUMAN_CONTROL: "human control (a person holds it)",
  VERIFY_AUTHENTICATION: "verifying authentication",
  RELEASED: "released",
};

/** An epoch-milliseconds time as an ISO string. */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A duration in milliseconds in the largest whole unit that fits: `45 s`, `12 min`, `3 h`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h`;
}

/** The lines `status`, `confirm`, `resume` and `release` print about a tracked session. */
export function trackedLines(session: TrackedSession, now: number): string[] {
  const lines = [`  control: ${STATE_WORDS[session.state]}`];
  if (session.reason !== undefined && session.state !== "AGENT_CONTROL")
    lines.push(`  takeover reason: ${session.reason}`);
  if (session.owner !== undefined) lines.push(`  owner: ${session.owner}`);
  lines.push(`  created: ${iso(session.createdAt)}, timeout ${session.timeoutMs} ms`);
  lines.push(
    `  last activity: ${iso(session.lastActivityAt)} (${duration(now - session.lastActivityAt)} ago)`,
  );
  if (session.releasedAt !== undefined) {
    const cause = session.releaseCause === undefined ? "" : `: ${session.releaseCause}`;
    lines.push(`  released: ${iso(session.releasedAt)}${cause}`);
  }
  return lines;
}

/** What Steel said of a session, in words. */
export function remoteWords(remote: SteelSession | undefined): string {
  if (remote === undefined) return "not on the server";
  const parts = [remote.status ?? "status unknown"];
  if (remote.createdAt !== undefined) parts.push(`created ${remote.createdAt}`);
  if (remote.timeoutMs !== undefined) parts.push(`timeout ${remote.timeoutMs} ms`);
  return parts.join(", ");
}
