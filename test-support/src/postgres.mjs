// @ts-check
// A throwaway PostgreSQL cluster for tests and the bench: Debian's server binaries, initdb into a temp folder,
// started on a free loopback port, stopped and removed afterwards. No mock and no in-process substitute: the
// store's PostgreSQL tests run against the real server. Plain JavaScript (typed by postgres.d.mts, exported as
// `@kxm/test-support/postgres`) so that the bench, plain Node, starts the same cluster the tests do.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./net.mjs";

/** @typedef {import("./postgres.d.mts").PostgresCluster} PostgresCluster */
/** @typedef {{ uid: number, gid: number } | undefined} ServerUser */

/** The migrated, empty database of the test cluster that each test database is copied from. */
export const TEMPLATE_DATABASE = "kxm_template";

/**
 * The newest installed server's bin folder: `KXM_POSTGRES_BIN`, or Debian's /usr/lib/postgresql/<major>/bin.
 * @returns {string}
 */
export function postgresBinDir() {
  const configured = process.env.KXM_POSTGRES_BIN;
  if (configured !== undefined && configured !== "") return configured;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = majors[0];
  if (newest === undefined) {
    throw new Error(
      "PostgreSQL's server binaries were not found: install Debian's postgresql package (.ci/run does), " +
        "or set KXM_POSTGRES_BIN to the folder holding initdb and pg_ctl",
    );
  }
  return join(root, newest, "bin");
}

/**
 * initdb and the server refuse to run as root: as root, run them as Debian's `postgres` user.
 * @returns {ServerUser}
 */
function asServerUser() {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** @param {ServerUser} user @param {string} command @param {string[]} args */
function run(user, command, args) {
  const result = spawnSync(command, args, {
    encoding: "utf8",
    ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    env: { ...process.env, LC_ALL: "C", TZ: "UTC" },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`,
    );
  }
}

/**
 * Starts a fresh cluster (about 2 to 3 s here). Durability settings are relaxed (`fsync=off`) unless `durable`:
 * a killed server process loses nothing the kernel holds, and these clusters never outlive a machine crash. The
 * bench starts a durable one, at the server's default settings, as a deployment runs.
 * @param {{ durable?: boolean }} [settings]
 * @returns {Promise<PostgresCluster>}
 */
export async function startPostgres(settings = {}) {
  const bin = postgresBinDir();
  const user = asServerUser();
  const dir = mkdtempSync(join(tmpdir(), "kxm-postgres-"));
  const data = join(dir, "data");
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o700);
  const port = await freePort();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], {
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
      stdio: "ignore",
    });
    rmSync(dir, { recursive: true, force: true });
  };
  let pid;
  try {
    run(user, join(bin, "initdb"), ["-D", data, "-U", "kxm", "-A", "trust", "-E", "UTF8", "--no-sync"]);
    const options = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${dir}`,
      ...(settings.durable === true ? [] : ["-c fsync=off", "-c full_page_writes=off"]),
      "-c max_connections=200",
    ].join(" ");
    run(user, join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "start"]);
    // The first line of postmaster.pid is the server's pid (pg_ctl -w returns once the file is complete).
    pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch (error) {
    stop();
    throw error;
  }
  return {
    port,
    pid,
    url: (database) => `postgres://kxm@127.0.0.1:${port}/${database}`,
    log: () => {
      try {
        return readFileSync(join(dir, "server.log"), "utf8");
      } catch {
        return "";
      }
    },
    stop,
  };
}

/**
 * Creates an empty database on the server of `adminUrl` (a database of the cluster the caller may use).
 * @param {string} adminUrl
 * @param {string} name
 * @param {string} [template]
 * @returns {Promise<void>}
 */
export async function createDatabase(adminUrl, name, template) {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}${template === undefined ? "" : ` template ${template}`}`);
  } finally {
    await admin.end();
  }
}
