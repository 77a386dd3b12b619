// The Steel contract: what KXM relies on a Steel deployment to do, as one suite run against two targets. The
// CI target is the Steel-compatible test server (@kxm/steel-test-server, real Chromium per session); the opt-in
// live target is a real deployment (`STEEL_API_URL` set, see live.test.ts). A figure or page the suite needs comes
// from the target, so nothing here assumes loopback: pages are written with setContent, not fetched.

import { tempDir } from "@kxm/test-support";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Browser, openBrowser, SteelClient, type SteelConfig } from "../../src/index.js";

export interface ContractTarget {
  /** Names the target in test titles. */
  name: string;
  start(): Promise<{ config: Omit<SteelConfig, "stateDir">; pageUrl: string; close(): Promise<void> }>;
}

export function steelContract(target: ContractTarget): void {
  describe(`the Steel contract on ${target.name}`, () => {
    let close: () => Promise<void> = async () => {};
    let config: SteelConfig;
    let browser: Browser;
    let pageUrl = "";

    beforeAll(async () => {
      const started = await target.start();
      close = started.close;
      pageUrl = started.pageUrl;
      config = { ...started.config, stateDir: await tempDir("kxm-steel-contract-") };
      browser = openBrowser(config);
    }, 60_000);
    afterAll(async () => {
      browser?.close();
      await close();
    });

    test("a created session is live, listed, drivable over CDP and gone from the live list once released", async () => {
      const { session, viewerUrl } = await browser.create({ timeoutMs: 120_000 });
      try {
        expect(session.state).toBe("AGENT_CONTROL");
        expect(viewerUrl).toContain(`sessionId=${session.id}`);
        expect(viewerUrl).not.toContain(config.key);
        const remote = (await browser.status(session.id)).remote;
        expect(remote?.id).toBe(session.id);
        expect((await browser.list()).map((entry) => entry.id)).toContain(session.id);

        const cdp = await chromium.connectOverCDP(await browser.cdpUrl(session.id));
        try {
          const context = cdp.contexts()[0] ?? (await cdp.newContext());
          const page = context.pages()[0] ?? (await context.newPage());
          await page.setContent('<main><h1 id="greeting">hello from a Steel session</h1></main>');
          expect(await page.locator("#greeting").textContent()).toBe("hello from a Steel session");
        } finally {
          await cdp.close();
        }
      } finally {
        const released = await browser.release(session.id, "agent");
        expect(released.state).toBe("RELEASED");
      }
      const after = await browser.list();
      const entry = after.find((candidate) => candidate.id === session.id);
      expect(entry?.remote === undefined || entry.remote.status !== "live").toBe(true);
    }, 90_000);

    test("a wrong key is browser_auth_failed and the message holds no key", async () => {
      const wrong = `wrong-key-${"x".repeat(24)}`;
      const client = new SteelClient({ ...config, key: wrong });
      const error = await client.list().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect((error as { code?: string }).code).toBe("browser_auth_failed");
      expect(String((error as Error).message)).not.toContain(wrong);
    });

    test("scrape and screenshot need no session", async () => {
      const client = new SteelClient(config);
      const scraped = JSON.stringify(await client.scrape({ url: pageUrl, format: "html" }));
      expect(scraped.length).toBeGreaterThan(0);
      const png = await client.screenshot({ url: pageUrl });
      expect(Buffer.from(png.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
    }, 60_000);
  });
}
