import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type SteelTestServer, startSteelTestServer } from "@kxm/steel-test-server";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BIN,
  baseEnv,
  CLI_DIR,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  json,
  kxm,
  STACK_FRAME,
  tempDir,
} from "./support/cli.js";

// `kxm browser`: every command through the built binary against the Steel test server (a real Chromium per
// session, the key checked as Steel's cloud checks it), one server for the whole file. Sessions launch their
// Chromium lazily, at the first CDP connection, so the tests that only create, list and release start none.
// Every stdout and stderr is kept and, at the end, searched for the key: only `connect --print-cdp-url` may
// print it.

const KEY = "steel-test-key-5f0c1d2e3a4b5c6d";
/** A test that runs kxm a dozen times or starts a Chromium: generous, for a loaded two-core machine. */
const SLOW = 120_000;
const PLAYWRIGHT = createRequire(import.meta.url).resolve("playwright-core");

let steel: SteelTestServer;
let site: { url: string; server: Server };
let stateDir: string;
let cwd: string;
/** Every output a kxm run printed, with whether it may hold the key (only --print-cdp-url may). */
const outputs: Array<{ args: string; text: string; mayHoldKey: boolean }> = [];

/** The Steel variables a run gets: the test server and its key, nothing from this machine's environment. */
function steelEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    STEEL_API_URL: steel.url,
    STEEL_API_KEY: KEY,
    STEEL_UI_URL: undefined,
    USE_PASS_CLI: "false",
    STEEL_PASS_VAULT: undefined,
    STEEL_PASS_ITEM: undefined,
    STEEL_PASS_FIELD: undefined,
    KXM_BROWSER_TIMEOUT_MS: undefined,
    KXM_BROWSER_STATE_DIR: stateDir,
    ...extra,
  };
}

async function browser(args: readonly string[], extra: Record<string, string | undefined> = {}) {
  const result = await kxm(["browser", ...args], { cwd, env: steelEnv(extra) });
  outputs.push({
    args: args.join(" "),
    text: result.stdout + result.stderr,
    mayHoldKey: args.includes("--print-cdp-url"),
  });
  return result;
}

/** `kxm browser create --json`: the new session's id. */
async function create(args: string[] = [], extra: Record<string, string> = {}): Promise<string> {
  const result = await browser(["create", "--json", ...args], extra);
  expect(result.code, result.stderr).toBe(0);
  return json<{ session: { id: string } }>(result).session.id;
}

function serverSession(id: string, server = steel) {
  const session = server.sessions().find((candidate) => candidate.id === id);
  expect(session, `the server has no session ${id}`).toBeDefined();
  return session!;
}

type Tracked = { id: string; state: string; reason?: string; releaseCause?: string };

async function trackedState(id: string, extra: Record<string, string> = {}): Promise<Tracked | undefined> {
  const result = await browser(["status", id, "--json"], extra);
  expect(result.code, result.stderr).toBe(0);
  return json<{ tracked?: Tracked }>(result).tracked;
}

/** A node -e script that attaches to KXM_BROWSER_CDP_URL with playwright-core and runs `body` with `page`. */
function nodeScript(body: string): string[] {
  return [
    process.execPath,
    "-e",
    `const { chromium } = require(${JSON.stringify(PLAYWRIGHT)});
(async () => {
  const browser = await chromium.connectOverCDP(process.env.KXM_BROWSER_CDP_URL);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  ${body}
})().catch((error) => { console.error(String(error)); process.exit(9); });`,
  ];
}

/** Every process's command line on this machine, from /proc. */
function allCommandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      // The process ended meanwhile.
    }
  }
  return lines;
}

beforeAll(async () => {
  steel = await startSteelTestServer({ apiKey: KEY, flavour: "cloud", launch: "lazy" });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const page = (title: string, body: string) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
    };
    if (url.pathname === "/") page("KXM test page", "<h1>Hello from loopback</h1><p>A plain page.</p>");
    else if (url.pathname === "/login")
      page(
        "Sign in",
        '<form action="/account"><label>One-time code <input id="code" name="code"></label>' +
          '<button id="verify">Verify</button></form>',
      );
    else if (url.pathname === "/account" && url.searchParams.get("code") === "246810")
      page("Account", '<div id="signed-in">Signed in as ada</div>');
    else if (url.pathname === "/account") page("Sign in", '<p id="wrong">Wrong code</p>');
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  site = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  stateDir = join(tempDir("kxm-cli-browser-state-"), "state");
  cwd = tempDir("kxm-cli-browser-");
}, 60_000);

afterAll(async () => {
  await steel?.close();
  await new Promise((done) => site?.server.close(done));
});

describe("kxm browser create, status, list and release", () => {
  test.concurrent(
    "a session is created live and tracked, listed, shown, and released on the server",
    async () => {
      const created = await browser(["create", "--json", "--timeout", "120000", "--owner", "cli-test"]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toBe("");
      const answer = json<{
        session: { id: string; state: string; timeoutMs: number; owner: string };
        viewerUrl: string;
        warnings: string[];
      }>(created);
      const id = answer.session.id;
      expect(answer.session).toMatchObject({ state: "AGENT_CONTROL", timeoutMs: 120_000, owner: "cli-test" });
      expect(answer.viewerUrl).toBe(`${steel.url}/v1/sessions/debug?sessionId=${id}`);
      expect(answer.warnings).toEqual([]);
      expect(serverSession(id)).toMatchObject({ status: "live", timeoutMs: 120_000 });

      const status = await browser(["status", id]);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(`Session ${id}\n  server: live`);
      expect(status.stdout).toContain("  control: agent control\n");
      expect(status.stdout).toContain("  owner: cli-test\n");
      expect(status.stdout).toContain(`  viewer: ${answer.viewerUrl}\n`);

      const list = await browser(["list"]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(
        new RegExp(`^${id}  live  AGENT_CONTROL  idle \\d+ s  owner cli-test$`, "m"),
      );
      const listed = json<{ sessions: Array<{ id: string; remote?: { status: string } }> }>(
        await browser(["list", "--json"]),
      );
      expect(listed.sessions.find((row) => row.id === id)?.remote?.status).toBe("live");

      const released = await browser(["release", id]);
      expect(released.code, released.stderr).toBe(0);
      expect(released.stdout).toBe(`Released session ${id} (released by the agent).\n`);
      expect(serverSession(id).status).toBe("released");
      expect(await trackedState(id)).toMatchObject({
        state: "RELEASED",
        releaseCause: "released by the agent",
      });
      // Releasing again changes nothing and fails nothing; the listing leaves the released session out.
      const again = await browser(["release", id, "--json"]);
      expect(again.code, again.stderr).toBe(0);
      expect(json(again)).toMatchObject({ id, state: "RELEASED" });
      expect((await browser(["list"])).stdout).not.toContain(id);
    },
    SLOW,
  );

  test.concurrent(
    "an id neither the server nor the tracker knows is browser_session_not_found",
    async () => {
      const missing = "00000000-0000-4000-8000-000000000000";
      expectFailureLine(await browser(["status", missing]), "browser status", new RegExp(missing));
      expectJsonFailure(await browser(["release", missing, "--json"]), "browser_session_not_found");
    },
    SLOW,
  );
});

describe("kxm browser scrape and screenshot", () => {
  test.concurrent(
    "scrape prints a loopback page's HTML or text; --json gives Steel's answer",
    async () => {
      const html = await browser(["scrape", `${site.url}/`]);
      expect(html.code, html.stderr).toBe(0);
      expect(html.stdout).toContain("<h1>Hello from loopback</h1>");
      const text = await browser(["scrape", `${site.url}/`, "--format", "text", "--json"]);
      expect(text.code, text.stderr).toBe(0);
      const answer = json<{ content: { text: string }; metadata: { title: string } }>(text);
      expect(answer.content.text).toContain("Hello from loopback");
      expect(answer.metadata.title).toBe("KXM test page");
      expectUsageError(await browser(["scrape", site.url, "--format", "pdf"]), "browser scrape", /pdf/);
    },
    SLOW,
  );

  test.concurrent(
    "screenshot writes a PNG of a loopback page to --out",
    async () => {
      const result = await browser([
        "screenshot",
        `${site.url}/`,
        "--out",
        "page.png",
        "--full-page",
        "--json",
      ]);
      expect(result.code, result.stderr).toBe(0);
      const answer = json<{ file: string; bytes: number }>(result);
      expect(answer.file).toBe(join(cwd, "page.png"));
      const png = await readFile(answer.file);
      expect(png.byteLength).toBe(answer.bytes);
      expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expectUsageError(await browser(["screenshot", site.url]), "browser screenshot", /required flag out/);
    },
    SLOW,
  );
});

describe("kxm browser connect", () => {
  test.concurrent(
    "without --print-cdp-url: the viewer and how to attach, no key; with it: the CDP URL alone",
    async () => {
      const id = await create();
      const info = await browser(["connect", id]);
      expect(info.code, info.stderr).toBe(0);
      expect(info.stdout).toContain(`Viewer: ${steel.url}/v1/sessions/debug?sessionId=${id}\n`);
      expect(info.stdout).toContain(`  kxm browser exec --session ${id} -- <command...>\n`);
      expect(info.stdout).not.toContain("devtools");

      const printed = await browser(["connect", id, "--print-cdp-url"]);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stderr).toBe("");
      const cdpUrl = `${steel.url.replace(/^http/, "ws")}/v1/devtools?sessionId=${id}&apiKey=${KEY}`;
      expect(printed.stdout).toBe(`${cdpUrl}\n`);
      // It is the URL Steel's CDP endpoint takes: a real client attaches with it and drives the session's browser.
      const attached = await chromium.connectOverCDP(printed.stdout.trim());
      try {
        const page = attached.contexts()[0]!.pages()[0] ?? (await attached.contexts()[0]!.newPage());
        await page.goto(`${site.url}/`);
        expect(await page.title()).toBe("KXM test page");
      } finally {
        await attached.close();
      }
      expect(json(await browser(["connect", id, "--print-cdp-url", "--json"]))).toEqual({ cdpUrl });

      await browser(["release", id]);
      const released = await browser(["connect", id, "--print-cdp-url"]);
      expectFailureLine(released, "browser connect", new RegExp(`session ${id} is released`));
    },
    SLOW,
  );
});

describe("kxm browser exec", () => {
  test.concurrent(
    "runs the command with the loopback relay, not the key, and releases after it fails",
    async () => {
      const result = await kxm(
        [
          "browser",
          "exec",
          "--",
          ...nodeScript(`
  await page.goto(${JSON.stringify(`${site.url}/`)});
  console.log("title: " + (await page.title()));
  console.log("env: " + JSON.stringify({ cdp: process.env.KXM_BROWSER_CDP_URL,
    session: process.env.KXM_BROWSER_SESSION_ID, key: process.env.STEEL_API_KEY ?? null }));
  await browser.close();
  process.exit(3);`),
        ],
        { cwd, env: steelEnv() },
      );
      outputs.push({ args: "exec (failing)", text: result.stdout + result.stderr, mayHoldKey: false });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stdout).toContain("title: KXM test page\n");
      const env = JSON.parse(/^env: (.*)$/m.exec(result.stdout)?.[1] ?? "{}") as {
        cdp: string;
        session: string;
        key: string | null;
      };
      expect(env.key).toBeNull();
      expect(env.cdp).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
      expect(env.cdp).not.toContain(KEY);
      expect(env.cdp).not.toContain("apiKey");
      expect(result.stderr).toBe(
        `browser exec: ${process.execPath} exited with 3; session ${env.session} released\n`,
      );
      expect(serverSession(env.session).status).toBe("released");
      expect(await trackedState(env.session)).toMatchObject({ state: "RELEASED" });
    },
    SLOW,
  );

  test.concurrent(
    "releases the session when exec gets SIGTERM; the key is in no process's argv meanwhile",
    async () => {
      const script = [
        process.execPath,
        "-e",
        `console.log(JSON.stringify({ pid: process.pid, session: process.env.KXM_BROWSER_SESSION_ID }));
setInterval(() => {}, 1000);`,
      ];
      const child: ChildProcess = spawn(process.execPath, [BIN, "browser", "exec", "--", ...script], {
        cwd,
        env: baseEnv(steelEnv()),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const started = await new Promise<{ pid: number; session: string }>((resolve, reject) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const line = stdout.split("\n")[0] ?? "";
          if (stdout.includes("\n")) resolve(JSON.parse(line) as { pid: number; session: string });
        });
        child.once("exit", (code) => reject(new Error(`exec ended early (${code}): ${stderr}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      expect(serverSession(started.session).status).toBe("live");
      // While the command runs: no command line holds the key, and the command's environment does not either.
      const lines = allCommandLines();
      expect(lines.some((line) => line.includes(String(started.pid)) || line.includes("setInterval"))).toBe(
        true,
      );
      expect(lines.filter((line) => line.includes(KEY))).toEqual([]);
      expect(readFileSync(`/proc/${started.pid}/environ`, "utf8")).not.toContain(KEY);
      child.kill("SIGTERM");
      expect(await exited).toBe(143);
      outputs.push({ args: "exec (SIGTERM)", text: stdout + stderr, mayHoldKey: false });
      expect(stderr).not.toMatch(STACK_FRAME);
      expect(stderr).toBe(
        `browser exec: ${process.execPath} exited with 143; session ${started.session} released\n`,
      );
      expect(serverSession(started.session).status).toBe("released");
      expect(await trackedState(started.session)).toMatchObject({ state: "RELEASED" });
    },
    SLOW,
  );

  test.concurrent(
    "--session keeps the session open; usage errors exit 2",
    async () => {
      const id = await create();
      const result = await browser(["exec", "--session", id, "--json", "--", process.execPath, "-e", ""]);
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toEqual({ sessionId: id, exitCode: 0, released: false });
      expect(serverSession(id).status).toBe("live");
      await browser(["release", id]);
      const [bare, both, missing] = await Promise.all([
        browser(["exec"]),
        browser(["exec", "--session", id, "--timeout", "60000", "--", "true"]),
        browser(["exec", "--", "kxm-no-such-command-here"]),
      ]);
      expectUsageError(bare, "browser exec", /after --/);
      expectUsageError(both, "browser exec", /--session/);
      expectFailureLine(missing, "browser exec", "command not found: kxm-no-such-command-here");
    },
    SLOW,
  );
});

describe("kxm browser takeover, confirm and resume", () => {
  test.concurrent(
    "the agent hands over the viewer link, a person signs in, the agent verifies and resumes",
    async () => {
      const id = await create(["--timeout", "600000"]);
      const navigated = await browser([
        "exec",
        "--session",
        id,
        "--",
        ...nodeScript(`await page.goto(${JSON.stringify(`${site.url}/login`)}); await browser.close();`),
      ]);
      expect(navigated.code, navigated.stderr).toBe(0);

      const takeover = await browser(["takeover", id, "--reason", "The site asks for a one-time code"]);
      expect(takeover.code, takeover.stderr).toBe(0);
      const viewer = `${steel.url}/v1/sessions/debug?sessionId=${id}`;
      expect(takeover.stdout).toBe(
        `Session ${id} is now under human control: The site asks for a one-time code\n` +
          `Open the viewer and complete the step: ${viewer}\n` +
          `Then confirm it in a terminal: kxm browser confirm ${id}\n`,
      );
      expect(await trackedState(id)).toMatchObject({
        state: "HUMAN_CONTROL",
        reason: "The site asks for a one-time code",
      });

      // While the person holds it, the agent gets no CDP URL and runs nothing in it.
      // resume before the operator confirmed is a transition the state machine refuses.
      const [refused, refusedJson, execRefused, early, noReason] = await Promise.all([
        browser(["connect", id, "--print-cdp-url"]),
        browser(["connect", id, "--json"]),
        browser(["exec", "--session", id, "--json", "--", "true"]),
        browser(["resume", id, "--expect-selector", "#signed-in", "--json"]),
        browser(["takeover", id]),
      ]);
      expectFailureLine(refused, "browser connect", new RegExp(`session ${id} .*person`));
      expectJsonFailure(refusedJson, "browser_human_control");
      expectJsonFailure(execRefused, "browser_human_control");
      expectJsonFailure(early, "browser_takeover_invalid");
      expectUsageError(noReason, "browser takeover", /required flag reason/);

      // The operator, in the viewer (here: a script on the session's browser), enters the code.
      const operator = await chromium.connectOverCDP(
        `${steel.url.replace(/^http/, "ws")}/v1/devtools?sessionId=${id}&apiKey=${KEY}`,
      );
      try {
        const page = operator.contexts()[0]!.pages()[0]!;
        expect(page.url()).toBe(`${site.url}/login`);
        await page.fill("#code", "246810");
        await Promise.all([page.waitForURL(/\/account/), page.click("#verify")]);
        await page.waitForSelector("#signed-in");
      } finally {
        await operator.close();
      }
      const confirmed = await browser(["confirm", id]);
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect(confirmed.stdout).toContain(`Confirmed: session ${id} is now verifying authentication.\n`);

      // A check that does not hold sends the session back to the person.
      const failed = await browser(["resume", id, "--expect-selector", "#account-menu"]);
      expectFailureLine(failed, "browser resume", /signed-in check did not hold.*HUMAN_CONTROL/);
      expect(await trackedState(id)).toMatchObject({ state: "HUMAN_CONTROL" });
      expect((await browser(["confirm", id])).code).toBe(0);
      expectJsonFailure(await browser(["confirm", id, "--json"]), "browser_takeover_invalid");

      const [noCheck, resumed] = await Promise.all([
        browser(["resume", id]),
        browser(["resume", id, "--expect-selector", "#signed-in", "--expect-url", "/account", "--json"]),
      ]);
      expectUsageError(noCheck, "browser resume", /--expect-url/);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(json(resumed)).toMatchObject({ id, state: "AGENT_CONTROL" });
      expect((await browser(["connect", id, "--print-cdp-url"])).code).toBe(0);
      await browser(["release", id]);
    },
    SLOW,
  );

  test.concurrent(
    "--wait returns once the operator confirmed, and fails when the session is released meanwhile",
    async () => {
      const id = await create();
      const waiting = browser(["takeover", id, "--reason", "SSO login", "--wait", "20000", "--json"]);
      await expect
        .poll(async () => (await trackedState(id))?.state, { timeout: 10_000 })
        .toBe("HUMAN_CONTROL");
      expect((await browser(["confirm", id])).code).toBe(0);
      const done = await waiting;
      expect(done.code, done.stderr).toBe(0);
      expect(json(done)).toMatchObject({ session: { id, state: "VERIFY_AUTHENTICATION" } });
      expect(done.stderr).toBe(`browser takeover: viewer: ${steel.url}/v1/sessions/debug?sessionId=${id}\n`);

      const other = await create();
      const abandoned = browser(["takeover", other, "--reason", "consent", "--wait", "20000"]);
      await expect
        .poll(async () => (await trackedState(other))?.state, { timeout: 10_000 })
        .toBe("HUMAN_CONTROL");
      expect((await browser(["release", other, "--operator"])).code).toBe(0);
      const result = await abandoned;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^browser takeover failed: session ${other} .*released`, "m"));
      await browser(["release", id]);
    },
    SLOW,
  );
});

describe("kxm browser sweep", () => {
  test.concurrent(
    "--dry-run lists the plan and releases nothing; sweep releases the orphans, keeps a held session",
    async () => {
      // A server of its own: with --idle 1 the sweep would release the other tests' sessions too.
      const own = await startSteelTestServer({ apiKey: KEY, flavour: "cloud", launch: "lazy" });
      const env = { STEEL_API_URL: own.url };
      try {
        // An untracked session (created past KXM, as another tool would), an idle tracked one, one a person holds.
        const response = await fetch(`${own.url}/v1/sessions`, {
          method: "POST",
          headers: { "steel-api-key": KEY, "content-type": "application/json" },
          body: JSON.stringify({ timeout: 120_000 }),
        });
        const untracked = ((await response.json()) as { id: string }).id;
        const [idle, held] = await Promise.all([create([], env), create([], env)]);
        expect((await browser(["takeover", held, "--reason", "MFA"], env)).code).toBe(0);

        const plan = await browser(["sweep", "--dry-run", "--idle", "1"], env);
        expect(plan.code, plan.stderr).toBe(0);
        const lines = plan.stdout.trimEnd().split("\n");
        const planned: Array<[string, string]> = [
          [untracked, `would release ${untracked}: untracked, older than 0 minutes`],
          [idle, `would release ${idle}: tracked, idle for 0 minutes`],
          [held, `keep ${held}: held by a person (HUMAN_CONTROL)`],
        ];
        expect(lines).toEqual([
          ...planned.sort(([a], [b]) => (a < b ? -1 : 1)).map(([, line]) => line),
          "Dry run: 2 to release, 0 to mark released, 1 kept; nothing was released.",
        ]);
        for (const id of [untracked, idle, held]) expect(serverSession(id, own).status).toBe("live");

        const swept = await browser(["sweep", "--idle", "1", "--json"], env);
        expect(swept.code, swept.stderr).toBe(0);
        const report = json<{
          dryRun: boolean;
          released: string[];
          entries: Array<{ id: string; action: string }>;
        }>(swept);
        expect(report.dryRun).toBe(false);
        expect([...report.released].sort()).toEqual([untracked, idle].sort());
        expect(serverSession(untracked, own).status).toBe("released");
        expect(serverSession(idle, own).status).toBe("released");
        expect(serverSession(held, own).status).toBe("live");
        expect(await trackedState(idle, env)).toMatchObject({ state: "RELEASED" });
        const again = await browser(["sweep", "--idle", "1"], env);
        expect(again.stdout).toBe(
          `kept ${held}: held by a person (HUMAN_CONTROL)\nReleased 0, marked 0 released, kept 1.\n`,
        );
      } finally {
        await own.close();
      }
    },
    SLOW,
  );
});

describe("configuration and failures", () => {
  test.concurrent(
    "STEEL_API_URL unset: a clear error, exit 1, and no connection to any host",
    async () => {
      // A preload records every socket the process opens, so "no vendor fallback" is seen, not assumed.
      const dir = tempDir("kxm-cli-browser-net-");
      const log = join(dir, "connections.log");
      const preload = join(dir, "record.cjs");
      writeFileSync(
        preload,
        `const net = require("node:net"); const fs = require("node:fs");
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === "object" && first !== null ? first : { port: first, host: args[1] };
  // TCP only: a Unix socket (a test runner's IPC) reaches no host.
  if (options.port !== undefined) fs.appendFileSync(${JSON.stringify(log)}, \`\${options.host}:\${options.port}\\n\`);
  return connect.apply(this, args);
};`,
      );
      const unset = await browser(["create"], {
        STEEL_API_URL: undefined,
        NODE_OPTIONS: `--require ${preload}`,
      });
      expectFailureLine(
        unset,
        "browser create",
        "STEEL_API_URL is unset: export the base URL of your Steel deployment (KXM has no default deployment)",
      );
      expect(existsSync(log) ? readFileSync(log, "utf8") : "").toBe("");
      expectJsonFailure(
        await browser(["list", "--json"], { STEEL_API_URL: undefined }),
        "browser_not_configured",
      );
      // The recorder sees a connection when there is one.
      const listed = await browser(["list"], { NODE_OPTIONS: `--require ${preload}` });
      expect(listed.code, listed.stderr).toBe(0);
      expect(readFileSync(log, "utf8")).toContain(`127.0.0.1:${new URL(steel.url).port}`);

      const noKey = await browser(["list"], { STEEL_API_KEY: undefined });
      expectFailureLine(noKey, "browser list", /STEEL_API_KEY is unset/);
      const badUrl = await browser(["list", "--json"], { STEEL_API_URL: "ftp://steel.example.com" });
      expectJsonFailure(badUrl, "browser_not_configured", /STEEL_API_URL must be an http/);
    },
    SLOW,
  );

  test.concurrent(
    "a wrong key is browser_auth_failed, without the key in the message",
    async () => {
      const wrong = "wrong-key-0123456789";
      const result = await browser(["list"], { STEEL_API_KEY: wrong });
      const message = expectFailureLine(result, "browser list");
      expect(message).not.toContain(wrong);
      expectJsonFailure(await browser(["create", "--json"], { STEEL_API_KEY: wrong }), "browser_auth_failed");
    },
    SLOW,
  );

  test.concurrent(
    "an unreachable Steel is browser_unreachable, naming its origin",
    async () => {
      const closed = createServer();
      await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((done) => closed.close(done));
      const result = await browser(["create"], { STEEL_API_URL: `http://127.0.0.1:${port}` });
      expectFailureLine(result, "browser create", new RegExp(`^Steel at http://127\\.0\\.0\\.1:${port} `));
      expectJsonFailure(
        await browser(["status", "x", "--json"], { STEEL_API_URL: `http://127.0.0.1:${port}` }),
        "browser_unreachable",
      );
    },
    SLOW,
  );
});

describe("the key", () => {
  test.sequential("no session is left live, and the key is on no line but connect --print-cdp-url's", () => {
    expect(
      steel
        .sessions()
        .filter((session) => session.status === "live")
        .map((session) => session.id),
    ).toEqual([]);
    expect(outputs.length).toBeGreaterThan(40);
    expect(outputs.filter((output) => output.mayHoldKey && output.text.includes(KEY)).length).toBeGreaterThan(
      0,
    );
    const leaks = outputs.filter((output) => !output.mayHoldKey && output.text.includes(KEY));
    expect(leaks.map((leak) => leak.args)).toEqual([]);
  });

  test.sequential(
    "the browser commands import @kxm/browser inside run(), never at load",
    async () => {
      for (const name of ["create", "exec", "sweep", "takeover"]) {
        const text = await readFile(join(CLI_DIR, "dist", "commands", "browser", `${name}.js`), "utf8");
        expect(text, name).not.toMatch(/^import\s[^;]*?from\s+"@kxm\/browser"/m);
      }
      const shared = await readFile(join(CLI_DIR, "dist", "browser-command.js"), "utf8");
      expect(shared).not.toMatch(/^import\s[^;]*?from\s+"@kxm\/browser"/m);
      expect(shared).toContain('await import("@kxm/browser")');
    },
    SLOW,
  );
});
