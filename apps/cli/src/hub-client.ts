import { isKxmError, KxmError, ROUTES, type RouteAuth, type RouteName } from "@kxm/contract";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { Flags } from "@oclif/core";
import { UsageError } from "./base.js";
import { type CliEnv, DEFAULT_HUB_URL, hubUrlSet, isHubUrl, readEnv } from "./env.js";

// How `kxm context` and `kxm hub` commands reach the hub: only through @kxm/contract's `createHubClient`, at --hub
// or KXM_HUB_URL, with one credential per call chosen by the route's `auth` (CREDENTIALS below). Failures come back
// as `KxmError`s whose messages say what to do, on one line.

/** The environment variables that hold a hub credential. */
type CredentialVariable = "KXM_AGENT_KEY" | "KXM_OPERATOR_TOKEN" | "KXM_AUTH_TOKEN";

/**
 * Which credential a call sends: the first of the route's list that is set, so the least powerful identity that
 * may do the work acts. Project routes (packets, recall, proposals, state, episodes) go as the agent when
 * KXM_AGENT_KEY is set, else as the operator, else with the admin token; operator routes (promote, review,
 * explain) as the operator, else with the admin token; hub management only ever with the admin token.
 */
const CREDENTIALS: Record<RouteAuth, readonly CredentialVariable[]> = {
  none: [],
  admin: ["KXM_AUTH_TOKEN"],
  operator: ["KXM_OPERATOR_TOKEN", "KXM_AUTH_TOKEN"],
  project: ["KXM_AGENT_KEY", "KXM_OPERATOR_TOKEN", "KXM_AUTH_TOKEN"],
};

const CREDENTIAL_NAMES: Record<CredentialVariable, string> = {
  KXM_AGENT_KEY: "agent key",
  KXM_OPERATOR_TOKEN: "operator token",
  KXM_AUTH_TOKEN: "admin token",
};

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

/** Whether a hub is named (`--hub`, or KXM_HUB_URL set): commands that work without a hub use one only then. */
export function hubNamed(hub: string | undefined): boolean {
  return hub !== undefined || hubUrlSet();
}

/**
 * The hub of `kxm run` (its reports, and what it withholds from dispatch context), only when one is named: `--hub`
 * or KXM_HUB_URL, since the default URL is not a configuration. It acts with KXM_AGENT_KEY, else KXM_AUTH_TOKEN.
 * Undefined without a named hub; an invalid URL or variable is a usage error.
 */
export function runHub(hub: string | undefined): { url: string; token?: string } | undefined {
  const { env, url } = hubSettings(hub);
  if (!hubNamed(hub)) return undefined;
  const token = env.KXM_AGENT_KEY ?? env.KXM_AUTH_TOKEN;
  return { url, ...(token === undefined ? {} : { token }) };
}

/**
 * The hub at `--hub` (else KXM_HUB_URL). Each route is called with the credential {@link CREDENTIALS} picks from
 * KXM_AGENT_KEY, KXM_OPERATOR_TOKEN and KXM_AUTH_TOKEN. An invalid URL or variable is a usage error.
 */
export function connectHub(hub: string | undefined): HubConnection {
  const { env, url } = hubSettings(hub);
  const clients = new Map<CredentialVariable | undefined, HubClient>();
  const clientFor = (variable: CredentialVariable | undefined): HubClient => {
    let made = clients.get(variable);
    if (made === undefined) {
      const token = variable === undefined ? undefined : env[variable];
      made = createHubClient({
        baseUrl: url,
        timeoutMs: env.KXM_HUB_TIMEOUT_MS,
        ...(token === undefined ? {} : { token }),
      });
      clients.set(variable, made);
    }
    return made;
  };
  const client: Partial<Record<RouteName, (input: never) => Promise<unknown>>> = {};
  for (const name of Object.keys(ROUTES) as RouteName[]) {
    const auth: RouteAuth = ROUTES[name].auth;
    const variable = CREDENTIALS[auth].find((candidate) => env[candidate] !== undefined);
    client[name] = async (input: unknown) => {
      try {
        return await (clientFor(variable)[name] as (input: unknown) => Promise<unknown>)(input);
      } catch (error) {
        throw explain(error, url, auth, variable, env.KXM_AGENT_KEY !== undefined);
      }
    };
  }
  return { client: client as HubClient, url };
}

/** A hub failure, reworded where the hub's own words would not tell an operator what to do; always one line. */
function explain(
  error: unknown,
  url: string,
  auth: RouteAuth,
  sent: CredentialVariable | undefined,
  agentKeySet: boolean,
): unknown {
  if (!isKxmError(error)) return error;
  let message = error.message;
  if (error.code === "invalid_auth") {
    if (sent === "KXM_AUTH_TOKEN") {
      message = `the hub refused the admin token (KXM_AUTH_TOKEN does not match the admin token of the hub at ${url})`;
    } else if (sent !== undefined) {
      message = `the hub refused the ${CREDENTIAL_NAMES[sent]} (${sent} is unknown or revoked at the hub at ${url})`;
    } else if (agentKeySet && auth !== "project") {
      const needs = CREDENTIALS[auth].join(" or ");
      message = `an agent key cannot do this: export ${needs} (KXM_AGENT_KEY is sent only for agent work)`;
    } else {
      message = "the hub refused the admin token (KXM_AUTH_TOKEN is unset): export the hub's admin token";
    }
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
