// @ts-check
// Start-up and shutdown as a process manager sees them: `kxm hub serve` on database paths that cannot hold a
// database must fail at once, and SIGTERM must end the process within the grace period plus a margin whatever a
// client does, while letting requests in flight at the signal finish.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SHUTDOWN_MARGIN_MS } from "@kxm/hub";
import { openStore } from "@kxm/state-store";
import { ADMIN_TOKEN as ADMIN, call, projectWithAgent, proposal } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { keepAliveClient } from "../lib/keepalive-client.mjs";
import { CLI, ROOT } from "../lib/paths.mjs";
import { count } from "../lib/stats.mjs";

const GRACE_MS = 2_000;
/** What a process manager may count on: the grace period, the hub's margin, and a second to deliver and reap. */
const BOUND_MS = GRACE_MS + SHUTDOWN_MARGIN_MS + 1_000;
/** How long a refusal may take beyond the CLI's own start-up (measured on the same machine, just before). */
const REFUSAL_MS = 2_000;

/**
 * Runs the built CLI and resolves with its exit code, output and wall time.
 * @param {string[]} args @param {string} cwd
 * @returns {Promise<{ code: number | null, stderr: string, ms: number }>}
 */
function runCli(args, cwd) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (code) => resolve({ code, stderr, ms: performance.now() - started }));
  });
}

/** A raw TCP connection to the hub. @param {string} base */
async function rawConnection(base) {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk) => {
    received += chunk;
  });
  return { socket, received: () => received };
}

const postHeaders = (/** @type {number} */ length) =>
  `POST /v1/projects HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${ADMIN}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** Sends SIGTERM and resolves with the exit code and how long the process took to exit. @param {import("../lib/hub-process.mjs").HubProcess} hub */
async function timedStop(hub) {
  const sent = performance.now();
  const { code } = await hub.stop("SIGTERM");
  return { code, ms: performance.now() - sent };
}

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "shutdown",
  title: "Bad database paths and bounded shutdown",
  order: 50,
  async run({ short, scratch, progress }) {
    // 1. Database paths that cannot hold a database.
    mkdirSync(join(scratch, "folder.db"));
    writeFileSync(join(scratch, "file"), "a file, not a folder");
    /** @type {[string, string][]} */
    const badPaths = [
      ["a new folder under /proc (Node's recursive mkdir spun here)", "/proc/kxm/kxm.db"],
      ["two new folders under /proc", "/proc/kxm/a/kxm.db"],
      ["a missing folder in /proc/self", "/proc/self/x/y.db"],
      ["an existing file in /proc", "/proc/self/status"],
      ["a path under /sys", "/sys/kxm/x.db"],
      ["a parent that is a regular file", join(scratch, "file", "x.db")],
      ["a path that is a folder", join(scratch, "folder.db")],
      ["a device", "/dev/null"],
      ["a name over 255 bytes", join(scratch, `${"n".repeat(256)}.db`)],
      ["a path over PATH_MAX", join(scratch, ...Array.from({ length: 25 }, () => "p".repeat(200)), "x.db")],
    ];
    // The CLI's start-up on this machine now: a usage error fails before anything of the hub is loaded. Measured
    // before and after, and the slower taken, since other work on the machine makes it vary.
    const startup = async () => (await runCli(["hub", "serve", "--port", "70000"], scratch)).ms;
    const before = await startup();
    // The short form tries the /proc paths that spun and one of each other kind through the CLI; all in openStore.
    const cliPaths = short ? badPaths.filter((_, n) => [0, 2, 4, 5, 6, 9].includes(n)) : badPaths;
    /** @type {{ what: string, code: number | null, stderr: string, ms: number }[]} */
    const results = [];
    for (const [what, path] of cliPaths)
      results.push({ what, ...(await runCli(["hub", "serve", "--port", "0", "--db", path], scratch)) });
    const baseline = { ms: Math.max(before, await startup()) };
    let refused = 0;
    let worstRefusal = 0;
    /** @type {string[]} */
    const notes = [];
    for (const result of results) {
      const { what } = result;
      const lines = result.stderr.trimEnd().split("\n");
      const ok =
        result.code === 1 &&
        lines.length === 1 &&
        lines[0]?.endsWith("(database_path_unusable)") === true &&
        result.ms - baseline.ms <= REFUSAL_MS;
      worstRefusal = Math.max(worstRefusal, result.ms);
      if (ok) refused += 1;
      else
        notes.push(
          `not refused as expected: ${what} (exit ${result.code}, ${Math.round(result.ms)} ms): ${result.stderr.slice(0, 200)}`,
        );
    }
    // In the library, with a NUL byte too (no argument or variable can carry one).
    let libraryRefused = 0;
    let worstLibrary = 0;
    const libraryPaths = [...badPaths.map(([, path]) => path), join(scratch, "a\0b.db")];
    for (const path of libraryPaths) {
      const started = performance.now();
      try {
        openStore({ path }).close();
      } catch (error) {
        if (/** @type {{ code?: unknown }} */ (error).code === "database_path_unusable") libraryRefused += 1;
      }
      worstLibrary = Math.max(worstLibrary, performance.now() - started);
    }
    progress(`${refused} of ${cliPaths.length} bad paths refused by kxm hub serve`);

    // 2. SIGTERM while a client holds the hub in each way a client can.
    const env = { KXM_LOG_LEVEL: "info", KXM_SHUTDOWN_GRACE_MS: String(GRACE_MS) };
    /** @type {{ kind: string, expected: number, code: number | null, ms: number }[]} */
    const hangs = [];
    const hang = async (
      /** @type {string} */ kind,
      /** @type {number} */ expected,
      /** @type {(url: string) => Promise<() => void>} */ hold,
    ) => {
      const hub = await startHubProcess({
        dbPath: join(scratch, `${hangs.length}.db`),
        adminToken: ADMIN,
        env,
      });
      const release = await hold(hub.url);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { code, ms } = await timedStop(hub);
      release();
      hangs.push({ kind, expected, code, ms });
    };
    await hang("a body trickled a byte every 200 ms, forever", 1, async (url) => {
      const { socket } = await rawConnection(url);
      socket.write(`${postHeaders(10_000)}{"id":`);
      const timer = setInterval(() => socket.write(" "), 200);
      return () => {
        clearInterval(timer);
        socket.destroy();
      };
    });
    await hang("an idle keep-alive connection", 0, async (url) => {
      const { socket, received } = await rawConnection(url);
      socket.write("GET /v1/health HTTP/1.1\r\nHost: hub\r\nConnection: keep-alive\r\n\r\n");
      while (!received().includes("\r\n\r\n")) await new Promise((resolve) => setTimeout(resolve, 20));
      return () => socket.destroy();
    });
    await hang("headers that never end", 1, async (url) => {
      const { socket } = await rawConnection(url);
      socket.write("GET /v1/health HTTP/1.1\r\nHost: hub\r\nX-Slow: ");
      const timer = setInterval(() => socket.write("a"), 200);
      return () => {
        clearInterval(timer);
        socket.destroy();
      };
    });
    // A close that never resolves: a hub process whose server never reports closed (any stuck handle).
    {
      const dist = pathToFileURL(join(ROOT, "apps", "hub", "dist", "index.js")).href;
      const script = [
        `import { readHubEnv, serveHub } from ${JSON.stringify(dist)};`,
        "const served = await serveHub({ env: readHubEnv() });",
        "served.app.server.close = () => served.app.server;",
        "setInterval(() => {}, 1000);",
      ].join("\n");
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? "", KXM_PORT: "0", KXM_DB_PATH: join(scratch, "hung.db"), ...env },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      await new Promise((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (chunk) => {
          out += chunk;
          if (out.includes('"hub_listening"')) resolve(undefined);
        });
        child.once("exit", () => reject(new Error(`the hung-close hub exited early: ${out}`)));
      });
      const sent = performance.now();
      child.kill("SIGTERM");
      /** @type {number | null} */
      const code = await new Promise((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
      const ms = performance.now() - sent;
      if (!out.includes('"hub_stop_forced"')) notes.push("the hung-close hub did not log hub_stop_forced");
      hangs.push({ kind: "a close that never resolves", expected: 1, code, ms });
    }
    const worstHang = Math.max(...hangs.map((h) => h.ms));
    const codesAsExpected = hangs.filter((h) => h.code === h.expected).length;
    for (const h of hangs)
      notes.push(
        `SIGTERM with ${h.kind}: exit ${h.code} (expected ${h.expected}) after ${Math.round(h.ms)} ms`,
      );
    progress(`worst SIGTERM with a hang: ${Math.round(worstHang)} ms`);

    // 3. SIGTERM under normal load: requests in flight at the signal complete; the exit is 0.
    const dbPath = join(scratch, "load.db");
    const hub = await startHubProcess({
      dbPath,
      adminToken: ADMIN,
      // No rate limit to meet: every answer other than 201 would be a failure of the stop.
      env: { ...env, KXM_SHUTDOWN_GRACE_MS: "10000", KXM_RATE_LIMIT: "1000000" },
    });
    const key = await projectWithAgent(hub.url, ADMIN, "stopping");
    const loadClients = short ? 16 : 32;
    const probes = short ? 8 : 16;
    let signalled = false;
    let loadBefore = 0;
    let loadBeforeAnswered = 0;
    let loadOther = 0;
    /** @type {string[]} */
    const acknowledged = [];
    const load = Array.from({ length: loadClients }, async (_, n) => {
      const connection = keepAliveClient(hub.url);
      for (let i = 0; !signalled; i += 1) {
        const body = proposal(`stopping.c${n}.n${i}`, `Value ${i} of client ${n}`);
        loadBefore += 1;
        try {
          const answer = await connection.call("POST", "/v1/projects/stopping/state/proposals", {
            token: key,
            body,
          });
          if (answer.status === 201) {
            loadBeforeAnswered += 1;
            acknowledged.push(`stopping.c${n}.n${i}`);
          } else loadOther += 1;
        } catch {
          // a reset as the hub closed an idle connection: counted below as not answered
        }
      }
      connection.close();
    });
    // Probes: connections the hub has certainly accepted (each answered a first request) that, just before the
    // signal, send a request's headers and half its body; the rest follows after the signal.
    const probeSockets = [];
    for (let n = 0; n < probes; n += 1) {
      const probe = await rawConnection(hub.url);
      probe.socket.write("GET /v1/health HTTP/1.1\r\nHost: hub\r\n\r\n");
      while (!probe.received().endsWith("}")) await new Promise((resolve) => setTimeout(resolve, 20));
      probeSockets.push({ ...probe, skip: probe.received().length, rest: "" });
    }
    await new Promise((resolve) => setTimeout(resolve, short ? 2_000 : 5_000));
    for (const [n, probe] of probeSockets.entries()) {
      const body = JSON.stringify({ id: `probe-${n}` });
      probe.socket.write(`${postHeaders(body.length)}${body.slice(0, 4)}`);
      probe.rest = body.slice(4);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = performance.now();
    signalled = true;
    const stopping = hub.stop("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const probe of probeSockets) probe.socket.write(probe.rest);
    const { code: loadExit } = await stopping;
    const loadStopMs = performance.now() - sent;
    await Promise.all(load);
    const probesCompleted = probeSockets.filter((probe) =>
      /^HTTP\/1\.1 201/.test(probe.received().slice(probe.skip)),
    ).length;
    for (const probe of probeSockets) {
      if (!/^HTTP\/1\.1 201/.test(probe.received().slice(probe.skip)))
        notes.push(
          `an in-flight probe got: ${JSON.stringify(probe.received().slice(probe.skip, probe.skip + 120))}`,
        );
      probe.socket.destroy();
    }
    // Every acknowledged write is in the file the next process opens.
    const again = await startHubProcess({
      dbPath,
      adminToken: ADMIN,
      env: { KXM_LOG_LEVEL: "silent", KXM_RATE_LIMIT: "1000000" },
    });
    let kept = 0;
    for (const stateKey of acknowledged) {
      const history = await call(again.url, "GET", `/v1/projects/stopping/state/${stateKey}/history`, {
        token: key,
      });
      if (history.status === 200 && history.json.items.length > 0) kept += 1;
    }
    const projects = await call(again.url, "GET", "/v1/projects", { token: ADMIN });
    const probesKept = probeSockets.filter((_, n) => projects.text.includes(`"probe-${n}"`)).length;
    await again.stop();
    notes.push(
      `Under load, ${count(loadBeforeAnswered)} of ${count(loadBefore)} proposals sent by ${loadClients} keep-alive clients were answered 201, ${count(loadOther)} with another status, and ${count(loadBefore - loadBeforeAnswered - loadOther)} were sent as the hub closed their idle connection (a reset, as with any keep-alive server that stops), never acknowledged. The hub stopped ${Math.round(loadStopMs)} ms after SIGTERM.`,
      "A NUL byte cannot travel in an argument or environment variable, so it is tried in openStore only.",
    );

    return {
      tried: `kxm hub serve on ${cliPaths.length} database paths that cannot hold a database (and openStore on those and a NUL byte); SIGTERM to a hub (grace ${GRACE_MS} ms) held by each of ${hangs.length} kinds of hang; SIGTERM to a hub under ${loadClients} writing clients with ${probes} requests in flight, then the acknowledged writes looked up in the next process.`,
      figures: [
        {
          label: `bad database paths refused by kxm hub serve (exit 1, one line, database_path_unusable, within ${REFUSAL_MS} ms beyond start-up)`,
          value: `${refused} of ${cliPaths.length} (worst ${Math.round(worstRefusal)} ms; start-up alone ${Math.round(baseline.ms)} ms)`,
          goal: "all",
          held: refused === cliPaths.length,
        },
        {
          label: "bad paths refused by openStore (database_path_unusable, under 1 s)",
          value: `${libraryRefused} of ${libraryPaths.length} (worst ${worstLibrary.toFixed(1)} ms)`,
          goal: "all",
          held: libraryRefused === libraryPaths.length && worstLibrary < 1_000,
        },
        {
          label: "worst time from SIGTERM to exit with a client holding the hub",
          value: `${Math.round(worstHang)} ms`,
          goal: `at most ${BOUND_MS} ms (grace ${GRACE_MS} + margin ${SHUTDOWN_MARGIN_MS} + 1,000)`,
          held: worstHang <= BOUND_MS,
        },
        {
          label: "exit codes as expected (1 when it cut or forced, 0 otherwise)",
          value: `${codesAsExpected} of ${hangs.length}`,
          goal: "all",
          held: codesAsExpected === hangs.length,
        },
        {
          label: "requests in flight at SIGTERM under load that completed (201)",
          value: `${probesCompleted} of ${probes}`,
          goal: "all",
          held: probesCompleted === probes,
        },
        {
          label: "acknowledged writes found after the stop",
          value: `${count(kept + probesKept)} of ${count(acknowledged.length + probesCompleted)}`,
          goal: "all",
          held: kept === acknowledged.length && probesKept === probesCompleted,
        },
        {
          label: "exit code after SIGTERM under load",
          value: String(loadExit),
          goal: "0",
          held: loadExit === 0,
        },
      ],
      notes,
    };
  },
};
