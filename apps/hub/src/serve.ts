import type { ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type KxmStore, openPostgresStore, openStore } from "@kxm/state-store";
import type { FastifyInstance } from "fastify";
import type { Logger, LoggerOptions } from "pino";
import { buildHub, purgeExpired } from "./app.js";
import type { HubEnv } from "./env.js";
import { describeError } from "./logging.js";

/** How often a serving hub purges what retention no longer keeps. */
const PURGE_INTERVAL_MS = 3_600_000;
/**
 * How long after the grace period a stopping process may still take (closing the database, flushing the log)
 * before it exits anyway. SQLite's WAL keeps every committed write through such an exit.
 */
export const SHUTDOWN_MARGIN_MS = 2_000;

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

/** How a hub stopped. */
export interface HubStopped {
  /** True when requests were still in flight at the end of the grace period and their connections were cut. */
  readonly forced: boolean;
  /** The connections cut at the end of the grace period (0 when every request finished in time). */
  readonly connectionsCut: number;
}

export interface ServingHub {
  /** The base URL the hub answers on, such as `http://127.0.0.1:7420`. */
  readonly url: string;
  /** The database it serves: the SQLite file, or the PostgreSQL URL without its password. */
  readonly database: string;
  readonly app: FastifyInstance;
  /**
   * Stops accepting connections and closes idle ones, lets requests in flight finish for `env.shutdownGraceMs`,
   * then cuts the connections still open, and closes the database. Safe to call twice.
   */
  close(): Promise<void>;
  /** `close()`, resolving with how it went (the same shared close). */
  stop(): Promise<HubStopped>;
}

function baseUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Opens the store (PostgreSQL at `env.databaseUrl` when set, else SQLite at `env.dbPath`, creating its folder), builds the hub, purges expired records, listens on
 * `env.host:env.port` (port 0 picks a free port), then purges every hour. On SIGINT or SIGTERM it closes (see
 * `ServingHub.close`) and exits 0, or 1 when it had to cut connections; if closing takes longer than the grace
 * period plus `SHUTDOWN_MARGIN_MS` it exits 1 anyway, and a second signal exits at once (130 or 143).
 */
export async function serveHub(options: ServeHubOptions): Promise<ServingHub> {
  const { env } = options;
  const store: KxmStore =
    env.databaseUrl === undefined
      ? openStore({ path: env.dbPath })
      : await openPostgresStore({ url: env.databaseUrl });
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
      inspectorSecureCookie: env.inspectorSecureCookie,
      ...(options.version === undefined ? {} : { version: options.version }),
    });
    await purgeExpired(app);
    track(app);
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

  let closing: Promise<HubStopped> | undefined;
  const close = (): Promise<HubStopped> => {
    closing ??= (async () => {
      clearInterval(timer);
      // After a signal the handlers stay, so that a second one exits at once; a close by call removes them.
      if (!signalled) {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      let stopped: HubStopped;
      try {
        stopped = await closeWithin(served, env.shutdownGraceMs);
      } finally {
        await store.close();
      }
      served.log.info({ event: "hub_stopped", ...stopped });
      return stopped;
    })();
    return closing;
  };
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      served.log.warn({ event: "hub_stop_forced", reason: "second_signal", signal });
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    signalled = true;
    served.log.info({ event: "hub_stopping", signal, graceMs: env.shutdownGraceMs });
    exitIfStuck(env.shutdownGraceMs + SHUTDOWN_MARGIN_MS, served.log);
    close().then(
      (stopped) => {
        if (stopped.forced) process.exitCode = 1;
      },
      (error: unknown) => {
        served.log.error({ event: "hub_stop_failed", error: describeError(error) });
        process.exitCode = 1;
      },
    );
  };
  if (options.handleSignals ?? true) {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  const url = baseUrl(served);
  served.log.info({
    event: "hub_listening",
    url,
    database: store.path,
    adminAuth: env.authToken !== undefined,
    retentionDays: env.retentionDays,
  });
  return {
    url,
    database: store.path,
    app: served,
    close: async () => {
      await close();
    },
    stop: close,
  };
}

const SOCKETS = new WeakMap<FastifyInstance, Set<Socket>>();
const RESPONSES = new WeakMap<FastifyInstance, Set<ServerResponse>>();

/** Keeps the server's open connections and unfinished responses, which a bounded close needs and Node hides. */
function track(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  const responses = new Set<ServerResponse>();
  SOCKETS.set(app, sockets);
  RESPONSES.set(app, responses);
  app.server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  app.server.on("request", (_request, response: ServerResponse) => {
    responses.add(response);
    response.once("close", () => responses.delete(response));
  });
}

/**
 * Closes `app` (no new connections; Fastify and Node close the idle ones and answer requests that arrive on busy
 * ones with `Connection: close`), lets unfinished requests run for `graceMs`, then destroys whatever connection is
 * still open: a client trickling its body, or one that never reads its answer, cannot hold the hub open.
 */
async function closeWithin(app: FastifyInstance, graceMs: number): Promise<HubStopped> {
  const sockets = SOCKETS.get(app) ?? new Set<Socket>();
  // A response already under way when the close began would otherwise leave its connection open for keep-alive.
  for (const response of RESPONSES.get(app) ?? []) {
    if (!response.headersSent) response.setHeader("connection", "close");
    response.once("finish", () => app.server.closeIdleConnections());
  }
  let connectionsCut = 0;
  const cut = setTimeout(() => {
    connectionsCut = sockets.size;
    app.log.warn({ event: "hub_connections_cut", connections: connectionsCut, graceMs });
    for (const socket of sockets) socket.destroy();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
  return { forced: connectionsCut > 0, connectionsCut };
}

/**
 * The last resort of a stopping process: if it is still alive after `ms` (a close that never resolves, a handle
 * that never ends), it logs `hub_stop_forced` and exits 1. The timer does not keep a finished process alive.
 */
export function exitIfStuck(ms: number, log: { error(event: object): void }): NodeJS.Timeout {
  const timer = setTimeout(() => {
    log.error({ event: "hub_stop_forced", reason: "close_hung", afterMs: ms });
    process.exit(1);
  }, ms);
  timer.unref();
  return timer;
}
