// The types of postgres.mjs.

/** The migrated, empty database of the test cluster that each test database is copied from. */
export declare const TEMPLATE_DATABASE = "kxm_template";

/** A running cluster: superuser `kxm`, trust authentication on loopback only. */
export interface PostgresCluster {
  readonly port: number;
  /** The server's (postmaster's) process id: its backends are its children. */
  readonly pid: number;
  /** The URL of one database of the cluster. */
  url(database: string): string;
  /** The server's log so far (for a failing test's message). */
  log(): string;
  /** Stops the server at once and removes its folder. Idempotent. */
  stop(): void;
}

/** The newest installed server's bin folder: `KXM_POSTGRES_BIN`, or Debian's /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(): string;

/**
 * Starts a fresh cluster (about 2 to 3 s here). Durability settings are relaxed (`fsync=off`) unless `durable`:
 * a killed server process loses nothing the kernel holds, and these clusters never outlive a machine crash. The
 * bench starts a durable one, at the server's default settings, as a deployment runs.
 */
export function startPostgres(options?: { durable?: boolean }): Promise<PostgresCluster>;

/** Creates an empty database on the server of `adminUrl` (a database of the cluster the caller may use). */
export function createDatabase(adminUrl: string, name: string, template?: string): Promise<void>;
