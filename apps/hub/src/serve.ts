import type { AddressInfo } from "node:net";
import { openStore } from "@kxm/state-store";
import type { FastifyInstance } from "fastify";
import type { Logger, LoggerOptions } from "pino";
import { buildHub, purgeExpired } from "./app.js";
import type { HubEnv } from "./env.js";
import { describeError } from "./logging.js";

/** How often a serving hub purges what retention no longer keeps. */
export const PURGE_INTERVAL_MS = 3_600_000;

export interface ServeHubOptions {
  /** The validated configuration (see `readHubEnv`). */
  readonly env: HubEnv;
  /** A pino logger or options (default: pino at `env.logLevel` on stdout); `false` for none. */
  readonly logger?: Logger | LoggerOptions | false;
  /** The clock (default: the system clock). */
  readonly now?: () => Date;
  /** Close gracefully on SIGINT and SIGTERM (default true). */
  readonly handleSignals?: boolean;
  /** The version `GET /v1/health` reports (default: this package's version). */
  readonly version?: string;
}

export interface ServingHub {
  /** The base URL the hub answers on, such as `http://127.0.0.1:7420`. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** Stops accepting requests, lets running ones finish, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

function baseUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Opens the store at `env.dbPath` (creating its folder), builds the hub, purges expired records, listens on
 * `env.host:env.port` (port 0 picks a free port), then purges every hour. On SIGINT or SIGTERM it closes the
 * server, then the database.
 */
export async function serveHub(options: ServeHubOptions): Promise<ServingHub> {
  const { env } = options;
  const store = openStore({ path: env.dbPath });
  let app: FastifyInstance;
  try {
    app = await buildHub({
      store,
      ...(env.authToken === undefined ? {} : { adminToken: env.authToken }),
      ...(options.now === undefined ? {} : { now: options.now }),
      logger: options.logger ?? { level: env.logLevel },
      rateLimit: { max: env.rateLimit, timeWindowMs: 60_000 },
      retentionDays: env.retentionDays,
      mcpAllowedOrigins: env.mcpAllowedOrigins,
      ...(options.version === undefined ? {} : { version: options.version }),
    });
    await purgeExpired(app);
    await app.listen({ host: env.host, port: env.port });
  } catch (error) {
    await store.close();
    throw error;
  }
  const served = app;
  const purge = () => {
    purgeExpired(served).catch((error: unknown) => {
      served.log.error({ event: "retention_purge_failed", error: describeError(error) });
    });
  };
  const timer = setInterval(purge, PURGE_INTERVAL_MS);
  timer.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(timer);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      try {
        await served.close();
      } finally {
        await store.close();
      }
      served.log.info({ event: "hub_stopped" });
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    served.log.info({ event: "hub_stopping", signal });
    close().catch((error: unknown) => {
      served.log.error({ event: "hub_stop_failed", error: describeError(error) });
      process.exitCode = 1;
    });
  };
  if (options.handleSignals ?? true) {
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }
  const url = baseUrl(served);
  served.log.info({
    event: "hub_listening",
    url,
    adminAuth: env.authToken !== undefined,
    retentionDays: env.retentionDays,
  });
  return { url, app: served, close };
}
