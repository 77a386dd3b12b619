// @ts-check
// A real hub in a process of its own: the built CLI's `kxm hub serve --json` on a free loopback port, with its
// JSON log lines (stderr) kept so that a scenario can search them.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { CLI } from "./paths.mjs";

/** Hubs still running: a scenario that throws (or a worker that exits) must not leave one behind. */
const running = new Set();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * @typedef {object} HubProcess
 * @property {string} url the base URL, such as http://127.0.0.1:40123
 * @property {import("node:child_process").ChildProcess} child
 * @property {() => string} log everything the hub wrote to stderr so far
 * @property {(signal?: NodeJS.Signals) => Promise<{ code: number | null, signal: NodeJS.Signals | null }>} stop
 *   sends the signal (default SIGTERM) and resolves when the process has exited
 */

/**
 * Starts `kxm hub serve --port 0 --json --db <dbPath>` and resolves once it prints its URL. With `databaseUrl`
 * instead, the hub serves that PostgreSQL database, passed in `KXM_DATABASE_URL` as a deployment would (never in
 * argv, which may not carry a password).
 * @param {({ dbPath: string, databaseUrl?: undefined } | { databaseUrl: string, dbPath?: undefined })
 *   & { adminToken?: string, env?: Record<string, string>, cwd?: string, timeoutMs?: number }} options
 * @returns {Promise<HubProcess>}
 */
export async function startHubProcess(options) {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    KXM_LOG_LEVEL: "info",
    KXM_HOST: "127.0.0.1",
    ...(options.adminToken === undefined ? {} : { KXM_AUTH_TOKEN: options.adminToken }),
    ...(options.databaseUrl === undefined ? {} : { KXM_DATABASE_URL: options.databaseUrl }),
    ...options.env,
  };
  const database = options.dbPath === undefined ? [] : ["--db", options.dbPath];
  const child = spawn(process.execPath, [CLI, "hub", "serve", "--port", "0", "--json", ...database], {
    cwd: options.cwd ?? process.cwd(),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stdout = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, "exit");
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `the hub did not print its URL within ${options.timeoutMs ?? 20_000} ms: ${stderr.slice(-500)}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
      let printed;
      try {
        printed = /** @type {{ url?: unknown }} */ (JSON.parse(stdout));
      } catch {
        return; // not all of it yet
      }
      clearTimeout(timer);
      if (typeof printed.url === "string") resolve(printed.url);
      else reject(new Error(`the hub printed no URL: ${stdout}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the hub exited (${code ?? signal}) before listening: ${stderr.slice(-500)}`));
    });
  });
  return {
    url: /** @type {string} */ (url),
    child,
    log: () => stderr,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, exitSignal] = await exited;
      return { code, signal: exitSignal };
    },
  };
}
