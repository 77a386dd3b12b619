// agent-browser, the exploration client of the guide, driving a session through `runInSession`: the real
// agent-browser CLI from npm (installed outside the workspace by `npm test`, named by KXM_AGENT_BROWSER_BIN), a
// real Chromium behind the Steel test server, and KXM's loopback relay in between, so no Steel key reaches argv.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startSteelTestServer } from "@kxm/steel-test-server";
import { tempDir } from "@kxm/test-support";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openBrowser, runInSession, type SteelConfig } from "../../src/index.js";
import { type MfaSite, startMfaSite } from "./mfa-site.js";

const KEY = "steel-agent-browser-key-5f1c2a9d";
const AGENT_BROWSER = process.env.KXM_AGENT_BROWSER_BIN;

let steel: Awaited<ReturnType<typeof startSteelTestServer>>;
let site: MfaSite;
let config: SteelConfig;

beforeAll(async () => {
  if (AGENT_BROWSER === undefined) {
    throw new Error(
      "KXM_AGENT_BROWSER_BIN is unset: run the tests through npm test, which installs agent-browser",
    );
  }
  [steel, site] = await Promise.all([startSteelTestServer({ apiKey: KEY }), startMfaSite()]);
  config = {
    apiUrl: steel.url,
    key: KEY,
    stateDir: await tempDir("kxm-agent-browser-"),
    requestTimeoutMs: 10_000,
  };
}, 60_000);
afterAll(async () => {
  await Promise.all([steel?.close(), site?.close()]);
});

test("agent-browser explores a page through kxm's relay, sees no key in any process, and the session is released", async () => {
  const out = await tempDir("kxm-agent-browser-out-");
  const script = [
    'ab() { "$NODE" "$AGENT_BROWSER" --session kxm-test --cdp "$KXM_BROWSER_CDP_URL" "$@"; }',
    `ab open "${site.url}/login" > "${join(out, "open.txt")}"`,
    `ab snapshot -i > "${join(out, "snapshot.txt")}"`,
    `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < "$f" 2>/dev/null; echo; done > "${join(out, "argv.txt")}"`,
    `echo "$KXM_BROWSER_SESSION_ID" > "${join(out, "session.txt")}"`,
    `echo "$KXM_BROWSER_CDP_URL" > "${join(out, "cdp.txt")}"`,
    "ab close >/dev/null 2>&1 || true",
  ].join("\n");
  const browser = openBrowser(config);
  try {
    const result = await runInSession(browser, undefined, ["sh", "-c", script], {
      env: { NODE: process.execPath, AGENT_BROWSER: AGENT_BROWSER! },
    });
    expect(result.exitCode).toBe(0);
    expect(result.released).toBe(true);
    const snapshot = readFileSync(join(out, "snapshot.txt"), "utf8");
    expect(snapshot).toMatch(/textbox/);
    expect(snapshot).toMatch(/button "Sign in"/);
    const argv = readFileSync(join(out, "argv.txt"), "utf8");
    expect(argv).not.toContain(KEY);
    const relay = readFileSync(join(out, "cdp.txt"), "utf8").trim();
    expect(relay).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    expect(relay).not.toContain(KEY);
    const id = readFileSync(join(out, "session.txt"), "utf8").trim();
    expect((await browser.status(id)).tracked?.state).toBe("RELEASED");
  } finally {
    browser.close();
  }
}, 120_000);
