import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, describe, expect, test, vi } from "vitest";
import { BIN, baseEnv, expectUsageError, kxm, STACK_FRAME, tempDir } from "./support/cli.js";

// `kxm hub serve --workers 2`: the real built CLI, two worker processes on one SQLite file and one port. A write
// through one worker is read by the other, an inspector session opened on one is known to both, a killed worker
// is replaced, and SIGTERM stops them all.

vi.setConfig({ testTimeout: 90_000 });

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface LogLine {
  event?: string;
  worker?: number | string;
  pid?: number;
}

function serveWorkers(dir: string) {
  const child = spawn(
    process.execPath,
    [BIN, "hub", "serve", "--port", "0", "--db", "hub.db", "--workers", "2"],
    {
      cwd: dir,
      env: baseEnv({ KXM_AUTH_TOKEN: ADMIN_TOKEN, KXM_LOG_LEVEL: "info" }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const logs = (): LogLine[] =>
    stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogLine);
  return { child, exited, stdout: () => stdout, stderr: () => stderr, logs };
}

/** One request on its own connection, so that the primary hands each to the next worker. */
async function call(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { connection: "close", ...(init.headers ?? {}) } });
}

describe("kxm hub serve --workers", () => {
  test("two workers answer alike from one database, share sessions, replace one that dies, and stop on SIGTERM", async () => {
    const served = serveWorkers(tempDir("kxm-cli-workers-"));
    await expect
      .poll(served.stdout, { timeout: 60_000 })
      .toMatch(/listening on http:\/\/\S+ \(database .*, 2 workers\)\n/);
    const base = /listening on (http:\/\/\S+)/.exec(served.stdout())![1]!;
    // The URL is printed once, after both workers listen.
    expect(served.stdout().match(/listening on/g)).toHaveLength(1);
    const listening = served.logs().filter((line) => line.event === "hub_worker_listening");
    expect(listening.map((line) => line.worker).sort()).toEqual([1, 2]);

    // Each write is read back at once on the next connection, which the other worker serves.
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    for (let i = 0; i < 6; i++) {
      const created = await call(`${base}/v1/projects`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ id: `p${i}` }),
      });
      expect(created.status).toBe(201);
      const listed = (await (await call(`${base}/v1/projects`, { headers: auth })).json()) as {
        projects: Array<{ id: string }>;
      };
      expect(listed.projects.map((project) => project.id)).toEqual(
        Array.from({ length: i + 1 }, (_, n) => `p${n}`),
      );
    }
    const servedBy = new Set(
      served
        .logs()
        .filter((line) => line.event === "request")
        .map((line) => line.pid),
    );
    expect(servedBy.size).toBe(2);

    // A session opened on one worker is known to both.
    const signIn = await call(`${base}/inspector/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: ADMIN_TOKEN }).toString(),
      redirect: "manual",
    });
    expect(signIn.status).toBe(303);
    const cookie = String(signIn.headers.get("set-cookie")).split(";")[0]!;
    for (let i = 0; i < 4; i++) {
      const page = await call(`${base}/inspector`, { headers: { cookie }, redirect: "manual" });
      expect(page.status).toBe(200);
    }

    // A worker killed outright is replaced, and the hub goes on answering.
    const victim = listening.find((line) => line.worker === 1)!.pid!;
    process.kill(victim, "SIGKILL");
    await expect
      .poll(() => served.logs().filter((line) => line.event === "hub_worker_listening").length, {
        timeout: 60_000,
      })
      .toBe(3);
    expect(served.logs().find((line) => line.event === "hub_worker_exited")).toMatchObject({
      worker: 1,
      signal: "SIGKILL",
    });
    for (let i = 0; i < 4; i++) expect((await call(`${base}/v1/health`)).status).toBe(200);

    served.child.kill("SIGTERM");
    expect(await served.exited, served.stderr()).toBe(0);
    expect(served.stdout()).toContain("kxm hub stopped (SIGTERM)\n");
    expect(served.stderr()).not.toMatch(STACK_FRAME);
    // No worker outlives the primary.
    const workers = served
      .logs()
      .filter((line) => line.event === "hub_worker_listening")
      .map((line) => (line as { pid: number }).pid);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    expect(served.stderr()).not.toContain(ADMIN_TOKEN);
  });

  test("a bad worker count is a usage error, from the flag or the variable", async () => {
    const dir = tempDir("kxm-cli-workers-");
    const [zero, word, tooMany] = await Promise.all([
      kxm(["hub", "serve", "--workers", "0"], { cwd: dir }),
      kxm(["hub", "serve", "--workers", "many"], { cwd: dir }),
      kxm(["hub", "serve"], { cwd: dir, env: { KXM_WORKERS: "300" } }),
    ]);
    for (const result of [zero, word]) {
      expectUsageError(
        result,
        "hub serve",
        "--workers must be a whole number of processes from 1 to 256, or auto (one per core)",
      );
    }
    expectUsageError(
      tooMany,
      "hub serve",
      "environment variable KXM_WORKERS must be a whole number of processes from 1 to 256, or auto (one per core)",
    );
  });
});
