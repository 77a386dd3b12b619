import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { BIN, baseEnv, expectFailureLine, kxm, STACK_FRAME, tempDir } from "./support/cli.js";

// `kxm hub serve` as a process manager sees it: a bad database path fails at once, and SIGTERM ends the process
// within the grace period plus a margin whatever a client does.

// Sequential, with room: each test starts one or two real CLI processes on a machine that may be busy.
vi.setConfig({ testTimeout: 60_000 });

const ADMIN_TOKEN = "test-admin-token-fedcba9876543210";
const GRACE_MS = 1_500;
// SHUTDOWN_MARGIN_MS (2 s) plus room for a busy machine to deliver the signal and reap the process.
const BOUND_MS = GRACE_MS + 2_000 + 1_500;

// A test that fails or times out must not leave its hub running.
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface Served {
  child: ChildProcess;
  url: URL;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function serve(dir: string, graceMs = GRACE_MS): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "hub", "serve", "--port", "0", "--db", "hub.db"], {
      cwd: dir,
      env: baseEnv({
        KXM_AUTH_TOKEN: ADMIN_TOKEN,
        KXM_LOG_LEVEL: "info",
        KXM_SHUTDOWN_GRACE_MS: String(graceMs),
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((done) =>
      child.once("exit", (code, signal) => done({ code, signal, at: performance.now() })),
    );
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match)
        resolve({ child, url: new URL(match[1] ?? ""), stdout: () => stdout, stderr: () => stderr, exited });
    });
    void exited.then(({ code }) => reject(new Error(`kxm hub serve exited ${code}: ${stderr}`)));
  });
}

/** A raw connection to the hub, with what it has received so far. */
async function rawConnection(url: URL): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((done) => socket.once("connect", done));
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    received += chunk;
  });
  socket.on("error", () => {});
  return { socket, received: () => received };
}

const BODY = JSON.stringify({ id: "trickled" });
const headers = (length: number) =>
  `POST /v1/projects HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

const events = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { event?: string }).event);

describe("kxm hub serve stops within its bound", () => {
  test("a client trickling its body forever is cut at the end of the grace period: exit 1", async () => {
    const served = await serve(tempDir("kxm-cli-stop-"));
    const { socket } = await rawConnection(served.url);
    socket.write(`${headers(BODY.length + 1000)}${BODY.slice(0, 3)}`);
    const trickle = setInterval(() => socket.write(" "), 200);
    await new Promise((done) => setTimeout(done, 300));
    const sent = performance.now();
    served.child.kill("SIGTERM");
    const { code, at } = await served.exited;
    clearInterval(trickle);
    expect(code, served.stderr()).toBe(1);
    expect(at - sent).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(at - sent).toBeLessThan(BOUND_MS);
    expect(events(served.stderr())).toEqual(
      expect.arrayContaining(["hub_stopping", "hub_connections_cut", "hub_stopped"]),
    );
    expect(served.stderr()).toContain(
      "after cutting 1 connection(s) still busy at the end of the 1500 ms grace",
    );
    expect(served.stderr()).not.toMatch(STACK_FRAME);
  });

  test("an idle keep-alive connection does not hold it: exit 0 well before the grace period ends", async () => {
    const served = await serve(tempDir("kxm-cli-stop-"), 20_000);
    const { socket, received } = await rawConnection(served.url);
    socket.write("GET /v1/health HTTP/1.1\r\nHost: hub\r\nConnection: keep-alive\r\n\r\n");
    await expect.poll(received).toMatch(/^HTTP\/1\.1 200/);
    const sent = performance.now();
    served.child.kill("SIGTERM");
    const { code, at } = await served.exited;
    expect(code, served.stderr()).toBe(0);
    expect(at - sent).toBeLessThan(5_000);
    expect(served.stdout()).toContain("kxm hub stopped (SIGTERM)\n");
  });

  test("a request in flight at SIGTERM completes, its connection closes, and the exit is 0", async () => {
    const dir = tempDir("kxm-cli-stop-");
    const served = await serve(dir, 10_000);
    const { socket, received } = await rawConnection(served.url);
    socket.write(`${headers(BODY.length)}${BODY.slice(0, 3)}`);
    await new Promise((done) => setTimeout(done, 300));
    served.child.kill("SIGTERM");
    await new Promise((done) => setTimeout(done, 500));
    socket.write(BODY.slice(3));
    const { code } = await served.exited;
    expect(code, served.stderr()).toBe(0);
    expect(received()).toMatch(/^HTTP\/1\.1 201/);
    expect(received().toLowerCase()).toContain("connection: close");
    expect(events(served.stderr())).not.toContain("hub_connections_cut");
    // The write it acknowledged is in the database.
    const again = await serve(dir);
    const list = await fetch(new URL("/v1/projects", again.url), {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(JSON.stringify(await list.json())).toContain('"trickled"');
    again.child.kill("SIGTERM");
    expect((await again.exited).code).toBe(0);
  });

  test("a second SIGTERM while stopping exits at once with 143", async () => {
    const served = await serve(tempDir("kxm-cli-stop-"), 60_000);
    const { socket } = await rawConnection(served.url);
    socket.write(`${headers(BODY.length + 10)}${BODY}`);
    await new Promise((done) => setTimeout(done, 300));
    served.child.kill("SIGTERM");
    await new Promise((done) => setTimeout(done, 500));
    const sent = performance.now();
    served.child.kill("SIGTERM");
    const { code, at } = await served.exited;
    expect(code).toBe(143);
    expect(at - sent).toBeLessThan(3_000);
    expect(served.stderr()).toContain("a second SIGTERM while stopping; exiting at once");
  });
});

describe("kxm hub serve refuses a database path that cannot hold a database", () => {
  const dir = tempDir("kxm-cli-badpath-");
  mkdirSync(join(dir, "folder.db"));
  writeFileSync(join(dir, "file"), "not a folder");
  const cases: [string, string, RegExp][] = [
    ["a folder under /proc that Node's mkdir spins on", "/proc/kxm/a/kxm.db", /kernel's proc file system/],
    ["a missing file under /proc/self", "/proc/self/x/y.db", /kernel's proc file system/],
    ["an existing /proc file", "/proc/self/status", /kernel's proc file system/],
    ["a path under /sys", "/sys/kxm/x.db", /kernel's sysfs file system/],
    ["a path whose parent is a regular file", join(dir, "file", "x.db"), /is not a folder/],
    ["a path that is a folder", join(dir, "folder.db"), /it is a folder/],
    ["a device", "/dev/null", /it is not a regular file/],
    ["a name over 255 bytes", join(dir, `${"n".repeat(256)}.db`), /NAME_MAX/],
    [
      "a path over PATH_MAX",
      join(dir, ...Array.from({ length: 25 }, () => "p".repeat(200)), "x.db"),
      /PATH_MAX/,
    ],
  ];
  test.for(cases)("%s", async ([, path, reason]) => {
    const started = performance.now();
    const result = await kxm(["hub", "serve", "--port", "0", "--db", path], { cwd: dir });
    // The CLI's own start-up is part of this on a busy machine; the check itself takes milliseconds.
    expect(performance.now() - started).toBeLessThan(10_000);
    const text = expectFailureLine(result, "hub serve");
    expect(text).toMatch(reason);
    expect(text.endsWith("(database_path_unusable)")).toBe(true);
    expect(existsSync("/proc/kxm")).toBe(false);
  });

  test("--json gives the code", async () => {
    const result = await kxm(["hub", "serve", "--json", "--db", "/proc/kxm/kxm.db"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: "database_path_unusable" } });
  });
});
