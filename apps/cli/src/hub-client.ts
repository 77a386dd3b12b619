import { createHubClient, type HubClient, isKxmError, KxmError, ROUTES, type RouteName } from "@kxm/contract";
import { Flags } from "@oclif/core";
import { UsageError } from "./base.js";
import { type CliEnv, DEFAULT_HUB_URL, isHubUrl, readEnv } from "./env.js";

// How `kxm context` and `kxm hub` commands reach the hub: only through @kxm/contract's `createHubClient`, as the
// control plane (the admin token in KXM_AUTH_TOKEN), at --hub or KXM_HUB_URL. Failures come back as `KxmError`s
// whose messages say what to do, on one line.

/** `--hub <url>`, shared by every command that calls a running hub. */
export const hubFlag = Flags.string({
  description: `The hub's URL (default: KXM_HUB_URL, else ${DEFAULT_HUB_URL})`,
  helpValue: "<url>",
});

/** A client for one hub, acting with the admin token. */
export interface HubConnection {
  readonly client: HubClient;
  /** The hub's base URL, as given. */
  readonly url: string;
}

/**
 * The validated environment and the hub's URL: `--hub`, else KXM_HUB_URL, else the default. An invalid variable or
 * `--hub` is a usage error.
 */
export function hubSettings(hub: string | undefined): { env: CliEnv; url: string } {
  const read = readEnv();
  if ("problem" in read) throw new UsageError(read.problem);
  if (hub !== undefined && !isHubUrl(hub)) {
    throw new UsageError(`--hub: ${hub} is not an http:// or https:// URL, such as ${DEFAULT_HUB_URL}`);
  }
  return { env: read.env, url: hub ?? read.env.KXM_HUB_URL };
}

/** The hub at `--hub` (else KXM_HUB_URL), called with KXM_AUTH_TOKEN. An invalid URL or variable is a usage error. */
export function connectHub(hub: string | undefined): HubConnection {
  const { env, url } = hubSettings(hub);
  const token = env.KXM_AUTH_TOKEN;
  const raw = createHubClient({
    baseUrl: url,
    ...(token === undefined ? {} : { token }),
  });
  const client: Partial<Record<RouteName, (input: never) => Promise<unknown>>> = {};
  for (const name of Object.keys(ROUTES) as RouteName[]) {
    const call = raw[name] as (input: unknown) => Promise<unknown>;
    client[name] = async (input: unknown) => {
      try {
        return await call(input);
      } catch (error) {
        throw explain(error, url, token !== undefined);
      }
    };
  }
  return { client: client as HubClient, url };
}

/** A hub failure, reworded where the hub's own words would not tell an operator what to do; always one line. */
function explain(error: unknown, url: string, tokenSet: boolean): unknown {
  if (!isKxmError(error)) return error;
  let message = error.message;
  if (error.code === "invalid_auth") {
    message = tokenSet
      ? `the hub refused the admin token (KXM_AUTH_TOKEN does not match the admin token of the hub at ${url})`
      : "the hub refused the admin token (KXM_AUTH_TOKEN is unset): export the hub's admin token";
  } else if (error.code === "hub_unreachable") {
    message = `${message}; start it with kxm hub serve, or point KXM_HUB_URL or --hub at it`;
  }
  return new KxmError(error.code, oneLine(message));
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** A summary cut to one line of at most `max` characters, for human output. */
export function clip(text: string, max = 160): string {
  const line = oneLine(text);
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** "1 item", "2 items". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
