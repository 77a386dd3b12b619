// The CDP relay and the signed-in check against a real Chromium (Debian's /usr/bin/chromium, headless). The
// relay's upstream is the Steel test server (@kxm/steel-test-server: it stands in for Steel, the outside service,
// with one real Chromium per session), which checks the key on the CDP URL, so these tests prove the relay adds
// the key upstream while the URL the command gets holds none.
import { type SteelTestServer, startSteelTestServer } from "@kxm/steel-test-server";
import { expectKxmRejection, freePort } from "@kxm/test-support";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startCdpRelay } from "../src/relay.js";
import { cdpUrl } from "../src/urls.js";
import { verifySignedIn } from "../src/verify.js";
import { startSite } from "./support/site.js";

const KEY = "sk-relay-4f9a";
let steel: SteelTestServer;
let site: Awaited<ReturnType<typeof startSite>>;
let sessionId: string;

beforeAll(async () => {
  steel = await startSteelTestServer({ apiKey: KEY, launch: "lazy" });
  site = await startSite();
  const created = await fetch(`${steel.url}/v1/sessions`, {
    method: "POST",
    headers: { "steel-api-key": KEY, "content-type": "application/json" },
    body: "{}",
  });
  sessionId = ((await created.json()) as { id: string }).id;
}, 60_000);

afterAll(async () => {
  await steel?.close();
  await site?.close();
});

/** CDP upgrades the server accepted (and so proxied to the session's Chromium). */
function cdpConnections(): number {
  return steel.requests.filter((r) => r.path === "/v1/devtools" && r.status === 101).length;
}

function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (condition()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error("timed out"));
      else setTimeout(tick, 25);
    };
    tick();
  });
}

describe("the CDP relay", () => {
  test("forwards CDP so that playwright-core's connectOverCDP drives the browser; the URL holds no key", async () => {
    let upstreamCalls = 0;
    const relay = await startCdpRelay({
      upstream: async () => {
        upstreamCalls += 1;
        return cdpUrl(steel.url, sessionId, KEY);
      },
      allowed: () => true,
    });
    expect(relay.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}$/);
    expect(relay.url).not.toContain(KEY);
    const before = cdpConnections();
    const browser = await chromium.connectOverCDP(relay.url, { timeout: 20_000 });
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = await context.newPage();
      await page.goto(`${site.url}/app/home`);
      await expect(page.locator("#account").textContent()).resolves.toBe("Signed in as Ada");
      const shot = await page.screenshot();
      expect(shot.subarray(1, 4).toString()).toBe("PNG");
      await page.close();
    } finally {
      await browser.close();
    }
    expect(upstreamCalls).toBe(1);
    expect(cdpConnections()).toBe(before + 1);
    await relay.close();
  });

  test("closes open connections and refuses new ones while a person holds the session", async () => {
    let allowed = true;
    const relay = await startCdpRelay({
      upstream: async () => cdpUrl(steel.url, sessionId, KEY),
      allowed: () => allowed,
      pollMs: 50,
    });
    const browser = await chromium.connectOverCDP(relay.url, { timeout: 20_000 });
    let disconnected = false;
    browser.on("disconnected", () => {
      disconnected = true;
    });
    expect(relay.connections()).toBe(1);
    allowed = false;
    await waitUntil(() => disconnected);
    expect(relay.connections()).toBe(0);
    await expect(chromium.connectOverCDP(relay.url, { timeout: 5_000 })).rejects.toThrow(/409/);
    allowed = true;
    const again = await chromium.connectOverCDP(relay.url, { timeout: 20_000 });
    await again.close();
    await relay.close();
  });

  test("refuses a wrong path token and an upstream that refuses the agent", async () => {
    const relay = await startCdpRelay({
      upstream: async () => {
        throw new Error("browser_human_control");
      },
      allowed: () => true,
    });
    const wrong = relay.url.replace(/\/[^/]+$/, "/not-the-token");
    await expect(chromium.connectOverCDP(wrong, { timeout: 5_000 })).rejects.toThrow(/404/);
    await expect(chromium.connectOverCDP(relay.url, { timeout: 5_000 })).rejects.toThrow(/409/);
    await relay.close();
  });

  test("an upstream that refuses the key: the client's connection fails, nothing stays open", async () => {
    const relay = await startCdpRelay({
      upstream: async () => cdpUrl(steel.url, sessionId, "wrong"),
      allowed: () => true,
    });
    await expect(chromium.connectOverCDP(relay.url, { timeout: 5_000 })).rejects.toThrow(/502/);
    expect(relay.connections()).toBe(0);
    await relay.close();
  });
});

describe("verifySignedIn", () => {
  test("holds when a page matches URL, selector and text; detaches without closing the page", async () => {
    // The agent's page, opened in the session's browser through the server's CDP endpoint.
    const url = cdpUrl(steel.url, sessionId, KEY);
    const driver = await chromium.connectOverCDP(url);
    const page = await (driver.contexts()[0] ?? (await driver.newContext())).newPage();
    await page.goto(`${site.url}/app/home?token=one-time-secret`);
    try {
      const ok = await verifySignedIn(
        url,
        { url: "/app/home", selector: "#account", text: "Signed in as Ada" },
        { timeoutMs: 10_000 },
      );
      expect(ok).toEqual({ ok: true, detail: `signed in on ${site.url}/app/home` });

      const bad = await verifySignedIn(
        url,
        { selector: "#nope", text: "Signed in as Bob" },
        { timeoutMs: 2_000 },
      );
      expect(bad.ok).toBe(false);
      expect(bad.detail).toContain(`${site.url}/app/home: selector, text did not match`);
      expect(bad.detail).not.toContain("one-time-secret");

      // The page the agent had is still there after both checks.
      expect(page.isClosed()).toBe(false);
      await expect(page.title()).resolves.toBe("Home");
    } finally {
      await page.close();
      await driver.close();
    }
  });

  test("a CDP URL that cannot be attached: browser_unreachable without the key or the query", async () => {
    const port = await freePort();
    const error = await expectKxmRejection(
      verifySignedIn(
        cdpUrl(`http://127.0.0.1:${port}`, "s1", KEY),
        { text: "x" },
        { timeoutMs: 3_000, secret: KEY },
      ),
      "browser_unreachable",
    );
    expect(error.message).toMatch(
      new RegExp(`^cannot attach over CDP to ws://127\\.0\\.0\\.1:${port}/v1/devtools: `),
    );
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain("apiKey");
  });

  test("a key the proxy refuses is browser_unreachable too, and says nothing of the key", async () => {
    const error = await expectKxmRejection(
      verifySignedIn(
        cdpUrl(steel.url, sessionId, "sk-wrong-key"),
        { text: "x" },
        { timeoutMs: 5_000, secret: "sk-wrong-key" },
      ),
      "browser_unreachable",
    );
    expect(error.message).not.toContain("sk-wrong-key");
  });
});
