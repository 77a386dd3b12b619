// runInSession and withSession: the command gets a keyless loopback CDP URL and the session id in its
// environment, drives a real Chromium through it, and the session is released in every case: exit 0, a
// failing exit, a command that does not exist, a signal to the process, and a person taking over meanwhile.
// Steel, the outside service, is the Steel test server (@kxm/steel-test-server: a real Chromium per session).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type SteelTestServer, startSteelTestServer } from "@kxm/steel-test-server";
import { expectKxmRejection, tempDir } from "@kxm/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type Browser, openBrowser, runInSession, type SteelConfig, withSession } from "../src/index.js";
import { assertFreshDist, plainNodeEnv } from "./support/dist.js";
import { startSite } from "./support/site.js";

const KEY = "sk-exec-31d0";
const CHILD = fileURLToPath(new URL("./fixtures/cdp-child.mjs", import.meta.url));
const DRIVER = fileURLToPath(new URL("./fixtures/exec-driver.mjs", import.meta.url));
let site: Awaited<ReturnType<typeof startSite>>;
let steel: SteelTestServer;
let config: SteelConfig;
let browser: Browser;

beforeAll(async () => {
  site = await startSite();
}, 60_000);

afterAll(async () => {
  await site?.close();
});

beforeAll(async () => {
  steel = await startSteelTestServer({ apiKey: KEY, launch: "lazy" });
  config = { apiUrl: steel.url, key: KEY, stateDir: await tempDir(), requestTimeoutMs: 10_000 };
});

afterEach(() => browser?.close());
afterAll(async () => steel?.close());

function open(): Browser {
  browser = openBrowser(config, { owner: "exec-test" });
  return browser;
}

function liveSessions(): string[] {
  return steel
    .sessions()
    .filter((s) => s.status === "live")
    .map((s) => s.id);
}

function remoteStatus(id: string): string | undefined {
  return steel.sessions().find((s) => s.id === id)?.status;
}

function waitForFile(path: string, content?: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (existsSync(path) && (content === undefined || readFileSync(path, "utf8").trim() === content))
        resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`no ${path}`));
      else setTimeout(tick, 25);
    };
    tick();
  });
}

describe("runInSession", () => {
  test("the command drives the session through a keyless relay, sees its id, and the session is released", async () => {
    const b = open();
    const out = join(await tempDir(), "out.json");
    const result = await runInSession(
      b,
      undefined,
      [process.execPath, CHILD, "drive", out, `${site.url}/app/home`, "0"],
      {
        stdio: "inherit",
        env: plainNodeEnv({ STEEL_API_KEY: "should-not-matter" }) as Record<string, string>,
      },
    );
    const seen = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
    expect(seen.title).toBe("Home");
    expect(seen.cdpUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+$/);
    expect(String(seen.cdpUrl)).not.toContain(KEY);
    expect(JSON.stringify(seen.argv)).not.toContain(KEY);
    expect(seen.sessionId).toBe(result.sessionId);
    expect(result).toEqual({ sessionId: result.sessionId, exitCode: 0, released: true });
    expect(remoteStatus(result.sessionId)).toBe("released");
    expect(b.tracked(result.sessionId)).toMatchObject({
      state: "RELEASED",
      releaseCause: "released by the agent",
    });
  });

  test("without env, the command's environment is this process's less STEEL_API_KEY", async () => {
    const b = open();
    const out = join(await tempDir(), "env.txt");
    // `sh -c` prints whether STEEL_API_KEY reached it; KXM_BROWSER_* are set for it.
    process.env.STEEL_API_KEY = KEY;
    try {
      const result = await runInSession(
        b,
        undefined,
        ["sh", "-c", `echo "key=\${STEEL_API_KEY:-unset} url=\${KXM_BROWSER_CDP_URL%%/*}" > '${out}'`],
        { stdio: "ignore" },
      );
      expect(result.exitCode).toBe(0);
    } finally {
      delete process.env.STEEL_API_KEY;
    }
    expect(readFileSync(out, "utf8").trim()).toBe("key=unset url=ws:");
  });

  test("a failing command: its exit code, and the session is released all the same", async () => {
    const b = open();
    const out = join(await tempDir(), "out.json");
    const result = await runInSession(
      b,
      undefined,
      [process.execPath, CHILD, "drive", out, `${site.url}/login`, "7"],
      {
        stdio: "ignore",
        env: plainNodeEnv() as Record<string, string>,
      },
    );
    expect(result.exitCode).toBe(7);
    expect(result.released).toBe(true);
    expect(remoteStatus(result.sessionId)).toBe("released");
  });

  test("a command that does not exist is invalid_usage, and the session is released", async () => {
    const b = open();
    const before = new Set(steel.sessions().map((s) => s.id));
    await expectKxmRejection(
      runInSession(b, undefined, ["kxm-no-such-command-xyz"], { stdio: "ignore" }),
      "invalid_usage",
    );
    const created = steel
      .sessions()
      .map((s) => s.id)
      .filter((id) => !before.has(id));
    expect(created).toHaveLength(1);
    expect(remoteStatus(created[0] ?? "")).toBe("released");
    await expectKxmRejection(runInSession(b, undefined, []), "invalid_usage");
  });

  test("an existing session is not released unless asked, and a session a person holds is refused", async () => {
    const b = open();
    const { session } = await b.create();
    const kept = await runInSession(b, session.id, ["true"], { stdio: "ignore" });
    expect(kept).toEqual({ sessionId: session.id, exitCode: 0, released: false });
    expect(remoteStatus(session.id)).toBe("live");
    await b.requestTakeover(session.id, "login");
    await expectKxmRejection(
      runInSession(b, session.id, ["true"], { stdio: "ignore" }),
      "browser_human_control",
    );
    await b.release(session.id, "agent");
  });

  test("a takeover while the command runs closes its CDP connection", async () => {
    const b = open();
    const out = join(await tempDir(), "hold.txt");
    const running = runInSession(b, undefined, [process.execPath, CHILD, "hold", out], {
      stdio: "inherit",
      pollMs: 50,
      env: plainNodeEnv() as Record<string, string>,
    });
    await waitForFile(out, "ready");
    const id = liveSessions().find(
      (sid) => b.tracked(sid)?.owner === "exec-test" && b.tracked(sid)?.state === "AGENT_CONTROL",
    );
    expect(id).toBeDefined();
    await b.requestTakeover(id ?? "", "MFA");
    const result = await running;
    expect(readFileSync(out, "utf8")).toBe("disconnected");
    expect(result).toMatchObject({ exitCode: 0, released: true });
    expect(remoteStatus(id ?? "")).toBe("released");
  });

  test("SIGTERM to the process: forwarded to the command, then the session is released", async () => {
    assertFreshDist();
    const dir = await tempDir();
    const marker = join(dir, "started");
    const child = spawn(process.execPath, [DRIVER, "run", steel.url, KEY, config.stateDir, marker], {
      env: plainNodeEnv(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitForFile(marker);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const result = JSON.parse(stdout) as {
      sessionId: string;
      exitCode: number;
      released: boolean;
      signal: string;
    };
    expect(result).toMatchObject({ exitCode: 143, released: true, signal: "SIGTERM" });
    expect(remoteStatus(result.sessionId)).toBe("released");
  });
});

describe("withSession", () => {
  test("releases the session when the function throws", async () => {
    const b = open();
    let id = "";
    await expect(
      withSession(b, { timeoutMs: 60_000 }, async (session) => {
        id = session.id;
        throw new Error("task failed");
      }),
    ).rejects.toThrow("task failed");
    expect(remoteStatus(id)).toBe("released");
    await expect(withSession(b, {}, async (session) => session.id)).resolves.toMatch(/-/);
  });

  test("a SIGTERM releases the session, then ends the process with that signal", async () => {
    assertFreshDist();
    const marker = join(await tempDir(), "session-id");
    const child = spawn(process.execPath, [DRIVER, "with", steel.url, KEY, config.stateDir, marker], {
      env: plainNodeEnv(),
      stdio: ["ignore", "ignore", "inherit"],
    });
    const exited = new Promise<string | null>((resolve) =>
      child.on("close", (_code, signal) => resolve(signal)),
    );
    await waitForFile(marker);
    const id = readFileSync(marker, "utf8");
    child.kill("SIGTERM");
    expect(await exited).toBe("SIGTERM");
    expect(remoteStatus(id)).toBe("released");
  });
});
