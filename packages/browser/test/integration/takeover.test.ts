// Human takeover end to end, with real parts: a real Chromium per session behind the Steel test server (which
// stands in for Steel's REST API and CDP endpoint: see @kxm/steel-test-server), a real local site whose sign-in
// asks for a second factor, playwright-core over CDP for the agent, and a scripted operator in the viewer's place.

import { startSteelTestServer } from "@kxm/steel-test-server";
import { tempDir } from "@kxm/test-support";
import { chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Browser, openBrowser, type SteelConfig } from "../../src/index.js";
import { type MfaSite, PASSWORD, startMfaSite, USER } from "./mfa-site.js";

const KEY = "steel-test-key-0123456789abcdef";

let steel: Awaited<ReturnType<typeof startSteelTestServer>>;
let site: MfaSite;
let config: SteelConfig;

beforeAll(async () => {
  [steel, site] = await Promise.all([startSteelTestServer({ apiKey: KEY }), startMfaSite()]);
  config = {
    apiUrl: steel.url,
    key: KEY,
    stateDir: await tempDir("kxm-takeover-"),
    requestTimeoutMs: 10_000,
  };
}, 60_000);
afterAll(async () => {
  await Promise.all([steel?.close(), site?.close()]);
});

/** Runs `act` on the session's first page over CDP, then disconnects (the session stays open). */
async function onPage<T>(cdpUrl: string, act: (page: Page) => Promise<T>): Promise<T> {
  const cdp = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = cdp.contexts()[0] ?? (await cdp.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    return await act(page);
  } finally {
    await cdp.close();
  }
}

/** The agent's part up to the second factor: it signs in with the password and lands on the code form. */
async function signInUntilMfa(browser: Browser, id: string): Promise<void> {
  await onPage(await browser.cdpUrl(id), async (page) => {
    await page.goto(`${site.url}/login`);
    await page.fill("#user", USER);
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForURL(/\/mfa$/), page.click("#sign-in")]);
  });
}

/**
 * The operator's part: in Steel's viewer a person types the code they received. The viewer forwards their input
 * to the session's browser; here a second CDP client on the test server plays that person. It uses the server's
 * own endpoint, not KXM's, because the operator's channel is the viewer, which KXM never hands the agent.
 */
async function operatorEntersCode(id: string): Promise<void> {
  await onPage(
    `${steel.url.replace(/^http/, "ws")}/v1/devtools?sessionId=${id}&apiKey=${KEY}`,
    async (page) => {
      await page.fill("#code", site.code());
      await Promise.all([page.waitForURL(/\/account$/), page.click("#verify")]);
    },
  );
}

describe("human takeover", () => {
  test("the agent pauses at MFA, hands over the viewer link, and resumes only after KXM verified the sign-in", async () => {
    const browser = openBrowser(config, { owner: "agent implementer" });
    const { session } = await browser.create({ timeoutMs: 120_000 });
    try {
      await signInUntilMfa(browser, session.id);

      const handover = await browser.requestTakeover(session.id, "the site asks for a one-time code (MFA)");
      expect(handover.session.state).toBe("HUMAN_CONTROL");
      expect(handover.viewerUrl).toBe(`${steel.url}/v1/sessions/debug?sessionId=${session.id}`);
      expect(handover.viewerUrl).not.toContain(KEY);

      // One controller at a time: while the person holds it, the agent gets no CDP URL and no action.
      await expect(browser.cdpUrl(session.id)).rejects.toMatchObject({ code: "browser_human_control" });
      await expect(browser.resume(session.id, { selector: "#account" })).rejects.toMatchObject({
        code: "browser_takeover_invalid",
      });

      // A second process sees the same truth through the tracker.
      const other = openBrowser(config);
      expect((await other.status(session.id)).tracked?.state).toBe("HUMAN_CONTROL");
      other.close();

      await operatorEntersCode(session.id);
      expect((await browser.confirm(session.id)).state).toBe("VERIFY_AUTHENTICATION");

      const resumed = await browser.resume(session.id, { selector: "#account", url: "/account" });
      expect(resumed.state).toBe("AGENT_CONTROL");
      const heading = await onPage(await browser.cdpUrl(session.id), (page) =>
        page.locator("#account").textContent(),
      );
      expect(heading).toBe(`Signed in as ${USER}`);
    } finally {
      await browser.release(session.id, "agent");
      browser.close();
    }
  }, 120_000);

  test("an operator who confirms too early sends the session back to them: the check did not hold", async () => {
    const browser = openBrowser(config);
    const { session } = await browser.create({ timeoutMs: 120_000 });
    try {
      await signInUntilMfa(browser, session.id);
      await browser.requestTakeover(session.id, "MFA");
      await browser.confirm(session.id);
      await expect(browser.resume(session.id, { selector: "#account" })).rejects.toMatchObject({
        code: "browser_verification_failed",
      });
      expect((await browser.status(session.id)).tracked?.state).toBe("HUMAN_CONTROL");
      await operatorEntersCode(session.id);
      await browser.confirm(session.id);
      expect((await browser.resume(session.id, { selector: "#account" })).state).toBe("AGENT_CONTROL");
    } finally {
      await browser.release(session.id, "agent");
      browser.close();
    }
  }, 120_000);

  test("a session that expired is recovered as the guide says: a new session and the takeover again", async () => {
    const browser = openBrowser(config);
    const { session } = await browser.create({ timeoutMs: 120_000 });
    await signInUntilMfa(browser, session.id);
    await browser.requestTakeover(session.id, "MFA");
    await steel.expire(session.id);

    // The signed-in state is gone with the session: KXM says so instead of handing out a dead CDP URL.
    await expect(browser.confirm(session.id)).rejects.toMatchObject({ code: "browser_session_released" });
    expect((await browser.status(session.id)).tracked?.state).toBe("RELEASED");

    const { session: fresh } = await browser.create({ timeoutMs: 120_000 });
    try {
      await signInUntilMfa(browser, fresh.id);
      await browser.requestTakeover(fresh.id, "MFA again after the session expired");
      await operatorEntersCode(fresh.id);
      await browser.confirm(fresh.id);
      expect((await browser.resume(fresh.id, { selector: "#account" })).state).toBe("AGENT_CONTROL");
    } finally {
      await browser.release(fresh.id, "agent");
      browser.close();
    }
  }, 150_000);
});
