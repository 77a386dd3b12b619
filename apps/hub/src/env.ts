import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { KxmError } from "@kxm/contract";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { DEFAULT_RETENTION_DAYS, parseDatabaseUrl } from "@kxm/state-store";
import { z } from "zod";
import { parseOrigin } from "./origin.js";

/** How long a stopping hub lets requests in flight finish before it closes their connections. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** Where the hub keeps its database when `KXM_DB_PATH` is unset, relative to the working folder. */
export const DEFAULT_DB_PATH = KXM_PATHS.database;

/** The most worker processes `kxm hub serve --workers` starts. */
export const MAX_WORKERS = 256;

/**
 * A worker count as `KXM_WORKERS` or `--workers` gives it: a whole number from 1 to 256, or `auto` for one per
 * core this process may use (`os.availableParallelism()`, at most 256). Undefined for anything else.
 */
export function parseWorkers(value: string): number | undefined {
  const text = value.trim();
  if (text === "auto") return Math.min(MAX_WORKERS, Math.max(1, availableParallelism()));
  if (!/^\d{1,3}$/.test(text)) return undefined;
  const count = Number(text);
  return count >= 1 && count <= MAX_WORKERS ? count : undefined;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.int().min(min).max(max));

// Every environment variable the hub reads, validated in one place. Keys are the variable names.
const EnvSchema = z.object({
  /** The admin (control-plane) token. Unset: every admin route answers 503 admin_auth_not_configured. */
  KXM_AUTH_TOKEN: z.string().min(16).max(4096).optional(),
  /** The SQLite database file. */
  KXM_DB_PATH: z.string().min(1).max(4096).default(DEFAULT_DB_PATH),
  /** A PostgreSQL server's database (`postgres://user:password@host:port/db`): set, the hub uses it, not SQLite. */
  KXM_DATABASE_URL: z.string().min(1).max(8192).optional(),
  /** The address to listen on; loopback unless you mean otherwise. */
  KXM_HOST: z.string().trim().min(1).max(255).default("127.0.0.1"),
  /** The TCP port; 0 picks any free port. */
  KXM_PORT: integer(0, 65_535).default(7420),
  /** Days superseded state, closed proposals and terminal runs are kept. */
  KXM_RETENTION_DAYS: integer(1, 36_500).default(DEFAULT_RETENTION_DAYS),
  /** The log level. */
  KXM_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** Requests per minute per credential (or per address without one). */
  KXM_RATE_LIMIT: integer(1, 1_000_000).default(600),
  /** Milliseconds a stopping hub lets requests in flight finish before it cuts their connections. */
  KXM_SHUTDOWN_GRACE_MS: integer(0, 600_000).default(DEFAULT_SHUTDOWN_GRACE_MS),
  /** Browser origins `/mcp` accepts besides loopback ones: comma-separated `scheme://host[:port]`. */
  KXM_MCP_ALLOWED_ORIGINS: z
    .string()
    .max(8192)
    .transform((value, context) => {
      const origins: string[] = [];
      for (const part of value.split(",").map((entry) => entry.trim())) {
        if (part === "") continue;
        const origin = parseOrigin(part);
        if (origin === undefined) {
          context.addIssue({ code: "custom", message: "not an origin" });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    })
    .default([]),
  /** Set the inspector's session cookie `Secure` on plain http too: for a hub behind a TLS proxy. */
  KXM_INSPECTOR_SECURE_COOKIE: z
    .enum(["0", "1", "false", "true"])
    .transform((value) => value === "1" || value === "true")
    .default(false),
  /** Hub processes `kxm hub serve` runs on the one database: 1 to 256, or `auto` (one per core). */
  KXM_WORKERS: z
    .string()
    .transform((value, context) => {
      const count = parseWorkers(value);
      if (count === undefined) {
        context.addIssue({ code: "custom", message: "not a worker count" });
        return z.NEVER;
      }
      return count;
    })
    .default(1),
});

const RULES: Readonly<Record<keyof z.input<typeof EnvSchema>, string>> = {
  KXM_AUTH_TOKEN: "must be 16 to 4096 characters",
  KXM_DB_PATH: "must be a file path",
  KXM_DATABASE_URL: "must be a postgres:// URL of at most 8192 characters",
  KXM_HOST: "must be a host name or address",
  KXM_PORT: "must be a whole number from 0 to 65535",
  KXM_RETENTION_DAYS: "must be a whole number of days from 1 to 36500",
  KXM_LOG_LEVEL: `must be one of ${LOG_LEVELS.join(", ")}`,
  KXM_RATE_LIMIT: "must be a whole number of requests per minute from 1 to 1000000",
  KXM_SHUTDOWN_GRACE_MS: "must be a whole number of milliseconds from 0 to 600000",
  KXM_MCP_ALLOWED_ORIGINS: "must be comma-separated origins such as https://app.example.com (no path)",
  KXM_INSPECTOR_SECURE_COOKIE: "must be 1 or 0 (or true or false)",
  KXM_WORKERS: "must be a whole number of processes from 1 to 256, or auto (one per core)",
};

/** The hub's validated configuration. */
export interface HubEnv {
  /** The admin token, or undefined when none is configured. */
  readonly authToken: string | undefined;
  /** The database file, absolute (unused when {@link databaseUrl} is set). */
  readonly dbPath: string;
  /** The PostgreSQL database (`KXM_DATABASE_URL`), or undefined for the embedded SQLite file at {@link dbPath}. */
  readonly databaseUrl: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly retentionDays: number;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Requests per minute per credential. */
  readonly rateLimit: number;
  /** Milliseconds a stopping hub waits for requests in flight before it cuts their connections. */
  readonly shutdownGraceMs: number;
  /** Origins `/mcp` accepts besides loopback ones (`KXM_MCP_ALLOWED_ORIGINS`), each as `URL.origin` gives it. */
  readonly mcpAllowedOrigins: readonly string[];
  /** Whether the inspector's session cookie is always `Secure` (`KXM_INSPECTOR_SECURE_COOKIE`). */
  readonly inspectorSecureCookie: boolean;
  /**
   * How many hub processes `kxm hub serve` runs on the database (`KXM_WORKERS`, default 1). `serveHub` itself
   * always runs one: the CLI forks the workers.
   */
  readonly workers: number;
}

/**
 * Reads and validates the hub's environment. An empty variable counts as unset. A relative `KXM_DB_PATH` is
 * resolved against `cwd`. An invalid value throws `invalid_usage` naming the variable and the rule, never the
 * value (it may be a token); a `KXM_DATABASE_URL` that is not a postgres URL with a host and a database throws
 * `database_url_invalid`, naming no password.
 */
export function readHubEnv(
  source: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): HubEnv {
  const raw: Record<string, string | undefined> = {};
  for (const name of Object.keys(RULES)) {
    const value = source[name];
    raw[name] = value === undefined || value === "" ? undefined : value;
  }
  const result = EnvSchema.safeParse(raw);
  if (!result.success) {
    const name = String(result.error.issues[0]?.path[0] ?? "KXM_*") as keyof typeof RULES;
    throw new KxmError("invalid_usage", `environment variable ${name} ${RULES[name] ?? "is invalid"}`);
  }
  const env = result.data;
  if (env.KXM_DATABASE_URL !== undefined) parseDatabaseUrl(env.KXM_DATABASE_URL);
  return {
    authToken: env.KXM_AUTH_TOKEN,
    dbPath: isAbsolute(env.KXM_DB_PATH) ? env.KXM_DB_PATH : resolve(cwd, env.KXM_DB_PATH),
    databaseUrl: env.KXM_DATABASE_URL,
    host: env.KXM_HOST,
    port: env.KXM_PORT,
    retentionDays: env.KXM_RETENTION_DAYS,
    logLevel: env.KXM_LOG_LEVEL,
    rateLimit: env.KXM_RATE_LIMIT,
    shutdownGraceMs: env.KXM_SHUTDOWN_GRACE_MS,
    mcpAllowedOrigins: env.KXM_MCP_ALLOWED_ORIGINS,
    inspectorSecureCookie: env.KXM_INSPECTOR_SECURE_COOKIE,
    workers: env.KXM_WORKERS,
  };
}
