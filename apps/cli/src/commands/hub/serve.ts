import { resolve } from "node:path";
import { isKxmError, KxmError } from "@kxm/contract";
import type { HubEnv } from "@kxm/hub";
import { Flags } from "@oclif/core";
import { EXIT, KxmCommand, UsageError } from "../../base.js";
import { commandLineUrl, databaseUrlFlag } from "../../db-path.js";
import { hubEnvSource } from "../../env.js";

export default class HubServe extends KxmCommand {
  static override summary = "Run the hub until SIGINT or SIGTERM.";
  static override description =
    "Starts the hub, prints the URL it listens on, and serves until it receives SIGINT (Ctrl-C) or SIGTERM, then " +
    "stops taking connections, lets requests in flight finish for KXM_SHUTDOWN_GRACE_MS (default 10000), closes " +
    "the database and exits 0. Connections still busy at the end of the grace period are cut and it exits 1; if " +
    "closing hangs it exits 1 two seconds after the grace period; a second signal exits at once (130 or 143). " +
    "A database path that cannot hold a database (under /proc or /sys, a folder, too long, read-only) is " +
    "refused at once with database_path_unusable. With KXM_DATABASE_URL (or --database-url) it serves a " +
    "PostgreSQL database instead of the SQLite file, and several hubs may share it. The environment " +
    "configures it (KXM_AUTH_TOKEN, KXM_DB_PATH, KXM_DATABASE_URL, KXM_HOST, KXM_PORT, KXM_RETENTION_DAYS, " +
    "KXM_LOG_LEVEL, KXM_RATE_LIMIT, KXM_SHUTDOWN_GRACE_MS, KXM_WORKERS); --host, --port, --db, --database-url " +
    "and --workers override their variables. With --workers N (or auto, one per core) it runs N hub processes " +
    "on the one database and port, each answering any request, and replaces one that exits; the rate limit is " +
    "counted by each of them. A URL with a password is refused on the command line (every user can read a process's " +
    "arguments): put it in KXM_DATABASE_URL, or the password in PGPASSWORD. A relative " +
    "database path is resolved " +
    "against --cwd (or the current folder). Without KXM_AUTH_TOKEN every admin route answers 503 " +
    "admin_auth_not_configured. The hub's JSON log lines go to stderr; with --json, stdout holds only {url}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %>",
    "KXM_AUTH_TOKEN=$(cat ~/.kxm-admin-token) <%= config.bin %> <%= command.id %> --port 7420 --db .kxm/state/kxm.db",
    "<%= config.bin %> <%= command.id %> --host 0.0.0.0 --port 0 --json",
    "<%= config.bin %> <%= command.id %> --workers auto",
    "PGPASSWORD=$(cat ~/.kxm-db-password) <%= config.bin %> <%= command.id %> --database-url postgres://kxm@db.internal:5432/kxm",
  ];
  static override flags = {
    host: Flags.string({ description: "The address to listen on (default: KXM_HOST, else 127.0.0.1)" }),
    port: Flags.integer({
      description: "The TCP port; 0 picks a free one (default: KXM_PORT, else 7420)",
      min: 0,
      max: 65_535,
    }),
    db: Flags.string({
      description: "The SQLite database file (default: KXM_DB_PATH, else .kxm/state/kxm.db)",
      helpValue: "<file>",
      exclusive: ["database-url"],
    }),
    "database-url": databaseUrlFlag,
    workers: Flags.string({
      description:
        "Hub processes to run on the one database and port, 1 to 256, or auto for one per core (default: " +
        "KXM_WORKERS, else 1)",
      helpValue: "<n|auto>",
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(HubServe);
    const folder = await this.workingFolder(flags.cwd);
    const { checkDatabasePath, parseWorkers, readHubEnv } = await import("@kxm/hub/preflight");
    let env: HubEnv;
    try {
      env = readHubEnv(hubEnvSource(), folder);
    } catch (error) {
      if (isKxmError(error) && error.code === "invalid_usage") throw new UsageError(error.message);
      throw withCode(error);
    }
    env = {
      ...env,
      ...(flags.host === undefined ? {} : { host: flags.host }),
      ...(flags.port === undefined ? {} : { port: flags.port }),
      ...(flags.db === undefined ? {} : { dbPath: resolve(folder, flags.db), databaseUrl: undefined }),
    };
    if (flags.workers !== undefined) {
      const workers = parseWorkers(flags.workers);
      if (workers === undefined) {
        throw new UsageError(
          "--workers must be a whole number of processes from 1 to 256, or auto (one per core)",
        );
      }
      env = { ...env, workers };
    }
    // A path that cannot hold a database fails here, before the seconds it takes to load the server.
    try {
      if (flags["database-url"] !== undefined)
        env = { ...env, databaseUrl: commandLineUrl(flags["database-url"]) };
      if (env.databaseUrl === undefined) checkDatabasePath(env.dbPath);
    } catch (error) {
      throw withCode(error);
    }
    if (env.workers > 1) return this.serveWorkers(env);
    const { exitIfStuck, SHUTDOWN_MARGIN_MS, serveHub } = await import("@kxm/hub");
    // The hub's JSON log lines go to stderr, so stdout holds only what this command prints.
    const { pino } = await import("pino");
    const logger = pino({ level: env.logLevel }, pino.destination({ dest: 2, sync: true }));
    const stopped = stopSignal();
    let hub: Awaited<ReturnType<typeof serveHub>>;
    try {
      hub = await serveHub({ env, logger, handleSignals: false });
    } catch (error) {
      throw listenError(withCode(error), env.host, env.port);
    }
    this.listening(env, hub.url, `database ${hub.database}`);
    const signal = await stopped;
    logger.info({ event: "hub_stopping", signal, graceMs: env.shutdownGraceMs });
    exitIfStuck(env.shutdownGraceMs + SHUTDOWN_MARGIN_MS, logger);
    const { forced, connectionsCut } = await hub.stop();
    if (!forced) {
      this.say(`kxm hub stopped (${signal})`);
      return;
    }
    process.stderr.write(
      `kxm hub stopped (${signal}) after cutting ${connectionsCut} connection(s) still busy at the end of the ` +
        `${env.shutdownGraceMs} ms grace period\n`,
    );
    this.exit(EXIT.failed);
  }

  /** Prints where the hub listens (or {url} with --json), and warns when the control plane is off. */
  private listening(env: HubEnv, url: string, detail: string): void {
    if (this.jsonEnabled()) this.logJson({ url });
    else {
      this.log(`kxm hub listening on ${url} (${detail})`);
      if (env.authToken === undefined) {
        process.stderr.write(
          "warning: KXM_AUTH_TOKEN is unset, so every admin route answers 503 admin_auth_not_configured\n",
        );
      }
    }
  }

  /**
   * `--workers N` above 1: N hub processes on one database and port under a node:cluster primary (this process),
   * which prints the URL once all listen, and on SIGINT or SIGTERM stops them as one hub stops.
   */
  private async serveWorkers(env: HubEnv): Promise<void> {
    const [{ SHUTDOWN_MARGIN_MS }, { HubWorkers }, { pino }] = await Promise.all([
      import("@kxm/hub"),
      import("../../hub-workers.js"),
      import("pino"),
    ]);
    const logger = pino({ level: env.logLevel }, pino.destination({ dest: 2, sync: true })).child({
      worker: "primary",
    });
    const workers = new HubWorkers(env, env.workers, logger);
    const stopped = stopSignal(() => workers.kill());
    let url: string;
    let database: string;
    try {
      ({ url, database } = await workers.start());
    } catch (error) {
      throw listenError(withCode(error), env.host, env.port);
    }
    this.listening(env, url, `database ${database}, ${env.workers} workers`);
    const outcome = await Promise.race([
      stopped.then((signal) => ({ signal })),
      workers.failed.then((error) => ({ error })),
    ]);
    if ("error" in outcome) {
      logger.error({ event: "hub_workers_failed", message: outcome.error.message });
      await workers.stop();
      throw new KxmError("internal_error", outcome.error.message);
    }
    const { signal } = outcome;
    logger.info({ event: "hub_stopping", signal, graceMs: env.shutdownGraceMs, workers: env.workers });
    // Each worker bounds its own stop; this is the last resort if one of them hangs past its own.
    const stuck = setTimeout(
      () => {
        logger.error({ event: "hub_stop_forced", reason: "close_hung" });
        workers.kill();
      },
      env.shutdownGraceMs + 2 * SHUTDOWN_MARGIN_MS,
    );
    stuck.unref();
    const { forced, connectionsCut } = await workers.stop();
    clearTimeout(stuck);
    logger.info({ event: "hub_stopped", forced, connectionsCut, workers: env.workers });
    if (!forced) {
      this.say(`kxm hub stopped (${signal})`);
      return;
    }
    process.stderr.write(
      connectionsCut > 0
        ? `kxm hub stopped (${signal}) after cutting ${connectionsCut} connection(s) still busy at the end of the ` +
            `${env.shutdownGraceMs} ms grace period\n`
        : `kxm hub stopped (${signal}), but a worker had to be killed\n`,
    );
    this.exit(EXIT.failed);
  }
}

/**
 * Resolves with the first SIGINT or SIGTERM; a second one while stopping exits at once with 130 or 143, after
 * `beforeExit` (which ends the workers of `--workers`).
 */
function stopSignal(beforeExit: () => void = () => undefined): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        process.stderr.write(`kxm hub: a second ${signal} while stopping; exiting at once\n`);
        beforeExit();
        process.exit(signal === "SIGINT" ? 130 : 143);
      }
      received = true;
      done(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/** The code joins the line, so that a process manager's log says why the hub did not start. */
function withCode(error: unknown): unknown {
  if (
    isKxmError(error) &&
    (error.code === "database_path_unusable" ||
      error.code === "database_url_invalid" ||
      error.code === "database_unreachable")
  )
    return new KxmError(error.code, `${error.message} (${error.code})`);
  return error;
}

/** A port in use or an address that cannot be bound is an expected failure, not a bug. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  const where = `${host}:${port}`;
  if (code === "EADDRINUSE")
    return new KxmError("hub_unreachable", `cannot listen on ${where}: the port is in use`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EACCES") {
    return new KxmError("hub_unreachable", `cannot listen on ${where}: ${code}`);
  }
  return error;
}
