import { z } from "zod";

/** Where the hub listens unless KXM_HUB_URL or --hub says otherwise. */
export const DEFAULT_HUB_URL = "http://127.0.0.1:7420";

/** An http or https URL with a host (a base URL for the hub). */
export function isHubUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

// Every environment variable the CLI reads, validated in one place.
const EnvSchema = z.object({
  /** Who the CLI acts as when it records a proposer, promoter or rejector; overrides git's user.email. */
  KXM_ACTOR: z.string().trim().min(1).max(128).optional(),
  /** Print stack traces of unexpected failures. */
  KXM_DEBUG: z.enum(["0", "1", "false", "true"]).optional(),
  /** The hub's admin token, sent by `kxm context` and `kxm hub` commands as a Bearer token. */
  KXM_AUTH_TOKEN: z.string().min(1).max(4096).optional(),
  /**
   * An agent's key for its project, sent by `kxm mcp` as a Bearer token (never the admin token), and by the
   * `kxm context` commands that call project routes (get, recall, propose, state, episode): see hub-client.ts.
   */
  KXM_AGENT_KEY: z.string().min(1).max(4096).optional(),
  /** A named operator's token (`kxm hub operators add`), sent in place of the admin token for operator work. */
  KXM_OPERATOR_TOKEN: z.string().min(1).max(4096).optional(),
  /** The hub's base URL for `kxm context` and `kxm hub` commands (`--hub` overrides it). */
  KXM_HUB_URL: z.string().refine(isHubUrl).default(DEFAULT_HUB_URL),
  /** How long a call to the hub may take, connection to last byte, before it is `hub_unreachable`. */
  KXM_HUB_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});

export type CliEnv = z.infer<typeof EnvSchema>;

const RULES: Record<string, string> = {
  KXM_ACTOR: "must be 1 to 128 characters, not only white space",
  KXM_DEBUG: "must be 1 or 0",
  KXM_AUTH_TOKEN: "must be at most 4,096 characters",
  KXM_AGENT_KEY: "must be at most 4,096 characters",
  KXM_OPERATOR_TOKEN: "must be at most 4,096 characters",
  KXM_HUB_URL: "must be an http:// or https:// URL, such as http://127.0.0.1:7420",
  KXM_HUB_TIMEOUT_MS: "must be a whole number of milliseconds from 100 to 600000",
};

/** The validated environment, or the one-line problem with it (naming the variable, never its value). */
export function readEnv(source: NodeJS.ProcessEnv = process.env): { env: CliEnv } | { problem: string } {
  const result = EnvSchema.safeParse({
    KXM_ACTOR: source.KXM_ACTOR || undefined,
    KXM_DEBUG: source.KXM_DEBUG || undefined,
    KXM_AUTH_TOKEN: source.KXM_AUTH_TOKEN || undefined,
    KXM_AGENT_KEY: source.KXM_AGENT_KEY || undefined,
    KXM_OPERATOR_TOKEN: source.KXM_OPERATOR_TOKEN || undefined,
    KXM_HUB_URL: source.KXM_HUB_URL || undefined,
    KXM_HUB_TIMEOUT_MS: source.KXM_HUB_TIMEOUT_MS || undefined,
  });
  if (result.success) return { env: result.data };
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  return { problem: `environment variable ${name} ${RULES[name] ?? "is invalid"}` };
}

/** Whether KXM_HUB_URL is set (rather than the default applying): `kxm run start` reports to a hub only then. */
export function hubUrlSet(source: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(source.KXM_HUB_URL);
}

/**
 * The process's environment, for the hub's own env module: `kxm hub serve` and the maintenance commands hand it to
 * `readHubEnv`, which reads and validates the hub's KXM_* variables, so they find the database as the hub does.
 */
export function hubEnvSource(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * The process's environment, for @kxm/browser's `resolveConfig`: the `kxm browser` commands hand it over, and the
 * browser package reads and validates the STEEL_* and KXM_BROWSER_* variables (so the CLI and an agent that uses
 * the library directly agree on every one of them).
 */
export function browserEnvSource(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * The environment of a command `kxm browser exec` runs: this process's, without STEEL_API_KEY. The command reaches
 * its session through KXM_BROWSER_CDP_URL, a loopback relay that holds no key, so it has no use for the key and must
 * not be able to leak it (into a log, a prompt, a crash report).
 */
export function browserChildEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || CHILD_WITHHELD.has(name)) continue;
    env[name] = value;
  }
  return env;
}

const CHILD_WITHHELD = new Set(["STEEL_API_KEY"]);

/** Whether stack traces of unexpected failures are wanted; false when the environment itself is invalid. */
export function debugEnabled(): boolean {
  const read = readEnv();
  return "env" in read && (read.env.KXM_DEBUG === "1" || read.env.KXM_DEBUG === "true");
}
