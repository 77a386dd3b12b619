import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "@kxm/steel-test-server";
import { chromium, type Page } from "playwright-core";
import { expect, test } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  GUIDE_PROPOSAL,
  hubPerTest,
  projectWithAgent,
  proposeAndPromote,
} from "./helpers.js";

// The inspector in Debian's real Chromium, against a hub on a loopback port with real records: sign in, the
// projects page, a packet page with a replay through htmx, an item page, the state and a key's history,
// a run. The pages run under their own content
// security policy, and any violation it reports fails the test; axe-core checks each page for accessibility in a
// second browser context that bypasses the policy, only so that axe's script can be injected. The screenshots are
// the guide's (docs/guides/inspector.md).

const hub = hubPerTest();
/**
 * The guide's screenshots are rewritten only when KXM_UPDATE_SCREENSHOTS=1 (item ids are random, so each run's
 * pictures differ in their ids): otherwise they go to the test's own folder, and a test run leaves the tree clean.
 */
const GUIDE_IMAGES = fileURLToPath(new URL("../../../docs/guides/images/", import.meta.url));
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TASK = "Which branch do we release from?";

/**
 * Project demo with a promoted state value, a revoked evidence reference, a run with a step report and a served
 * packet; project docs too.
 */
async function records(): Promise<{ packetId: string; stateId: string }> {
  const key = await projectWithAgent(hub.app, "demo");
  await projectWithAgent(hub.app, "docs", "agent-writer");
  const { state } = await proposeAndPromote(hub.app, key);
  const other = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
    ...GUIDE_PROPOSAL,
    key: "release.freeze",
    summary: "Releases freeze on Fridays",
    evidenceRefs: ["chat:friday"],
  });
  expect(other.statusCode, other.body).toBe(201);
  await call(hub.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, {
    target: "evidence",
    value: "chat:friday",
    reason: "the chat thread was a joke",
  });
  for (const [summary, evidence] of [
    ["Deploys run Tuesday to Thursday", "runbook:deploys"],
    ["Deploys run any weekday", "chat:deploys"],
  ] as const) {
    const made = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
      ...GUIDE_PROPOSAL,
      key: "deploy.window",
      summary,
      evidenceRefs: [evidence],
    });
    expect(made.statusCode, made.body).toBe(201);
  }
  await call(hub.app, "POST", "/v1/projects/demo/runs", key, { workflow: "release", runId: "release-42" });
  await call(hub.app, "POST", "/v1/projects/demo/runs/release-42/journal", key, {
    category: "decision",
    stage: "plan",
    summary: "Cut release 42 from the main branch",
  });
  // A step report as `kxm run` sends it: what the step's prompt carried, by id.
  const reported = await call(hub.app, "POST", "/v1/projects/demo/runs/release-42/journal", key, {
    category: "observation",
    stage: "plan",
    summary: "Step plan (planner) attempt 1 completed with outcome done in 12.3 s",
    manifest: {
      attempt: 1,
      agent: "planner",
      role: "planner",
      memoryRevision: "ctxrev_a8558995af630f0a3eb247560aa83d0d80f1e88f6df05ff5e14e33ca76fb9741",
      items: [
        { id: state.id, section: "Current State", characters: 92, score: 3.25 },
        { id: "mem_release-checklist", section: "Project Knowledge", characters: 61, score: 1.5 },
      ],
      gaps: ["dispatch_context_items_withheld:revoked:1"],
      packetTokens: 164,
      promptTokens: 201,
    },
  });
  expect(reported.statusCode, reported.body).toBe(201);
  const step = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
    role: "planner",
    task: TASK,
    runId: "release-42",
    stage: "plan",
  });
  expect(step.statusCode, step.body).toBe(200);
  await call(hub.app, "POST", "/v1/projects/demo/runs/release-42/finish", key, { outcome: "succeeded" });
  const served = await call(hub.app, "POST", "/v1/projects/demo/context", key, {
    role: "planner",
    task: TASK,
  });
  expect(served.statusCode, served.body).toBe(200);
  return { packetId: served.json().audit.packetId, stateId: state.id };
}

async function shot(page: Page, folder: string, name: string): Promise<void> {
  await page.screenshot({ path: join(folder, `inspector-${name}.png`), fullPage: true });
}

test("signs in, shows projects, a packet with its replay and an item, with no policy or axe violation", async () => {
  await hub.start();
  const { packetId, stateId } = await records();
  await hub.app.listen({ host: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${(hub.app.server.address() as AddressInfo).port}`;
  const images = process.env.KXM_UPDATE_SCREENSHOTS === "1" ? GUIDE_IMAGES : join(hub.dir, "images");
  await mkdir(images, { recursive: true });
  const chrome = await launchChromium({ executablePath: "/usr/bin/chromium", parentDir: hub.dir });
  try {
    const browser = await chromium.connectOverCDP(chrome.wsEndpoint);
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    const page = await context.newPage();
    // Chromium reports each content-security-policy refusal (an inline script or style, another origin) here.
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    await page.goto(`${origin}/inspector/projects/demo/packets/${packetId}`);
    expect(new URL(page.url()).pathname).toBe("/inspector/sign-in");
    await shot(page, images, "sign-in");
    await page.getByLabel("Admin or operator token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${origin}/inspector`);
    expect(await page.locator("h1").textContent()).toBe("Projects");
    expect(await page.locator("tbody th").allTextContents()).toEqual(["demo", "docs"]);
    await shot(page, images, "projects");

    await page.getByRole("link", { name: "Packets of demo" }).click();
    await page.getByRole("link", { name: packetId }).click();
    await page.waitForURL(`${origin}/inspector/projects/demo/packets/${packetId}`);
    await page.getByLabel(/The task it was asked for/).fill(TASK);
    await page.getByRole("button", { name: "Replay" }).click();
    // htmx puts the answer under the form: the page itself is not reloaded.
    await expect
      .poll(async () => (await page.locator("#replay-result").textContent())?.trim())
      .toBe(`The replay gave the same packet, ${packetId}.`);
    expect(page.url()).toBe(`${origin}/inspector/projects/demo/packets/${packetId}`);
    await shot(page, images, "packet");

    await page.getByRole("link", { name: stateId }).first().click();
    await page.waitForURL(`${origin}/inspector/projects/demo/items/${stateId}`);
    expect(await page.locator("h1").textContent()).toBe(`Item ${stateId}`);
    await shot(page, images, "item");

    await page.goto(`${origin}/inspector`);
    await page.getByRole("link", { name: "state of demo" }).click();
    await page.waitForURL(`${origin}/inspector/projects/demo/state`);
    expect(await page.locator(".card").count()).toBe(2);
    await shot(page, images, "state");
    await page.getByRole("link", { name: "release.branch" }).first().click();
    await page.getByLabel(/A time/).fill("2026-10-02T00:00:00Z");
    await page.getByRole("button", { name: "Show the value" }).click();
    await page.waitForURL(/asOf=/);
    expect(await page.locator("p.ok").textContent()).toContain(stateId);
    await shot(page, images, "state-key");

    await page.goto(`${origin}/inspector`);
    await page.getByRole("link", { name: "runs of demo" }).click();
    await page.getByRole("link", { name: "release-42" }).click();
    await page.waitForURL(`${origin}/inspector/projects/demo/runs/release-42`);
    expect(await page.locator("h1").textContent()).toBe("Run release-42");
    expect(await page.locator("h3").allTextContents()).toEqual(["Step plan, attempt 1"]);
    await shot(page, images, "run");
    expect(problems).toEqual([]);

    // axe-core's script is inline, which the pages' policy refuses: this context bypasses the policy for it alone.
    const axe = await readFile(AXE, "utf8");
    const checking = await browser.newContext({ bypassCSP: true });
    await checking.addCookies(await context.cookies());
    const checker = await checking.newPage();
    const urls = [
      "/inspector",
      "/inspector/projects/demo/packets",
      `/inspector/projects/demo/packets/${packetId}`,
      `/inspector/projects/demo/items/${stateId}`,
      "/inspector/projects/demo/state",
      "/inspector/projects/demo/state/release.branch?asOf=2026-10-02T00:00:00Z",
      "/inspector/projects/demo/runs",
      "/inspector/projects/demo/runs/release-42",
    ];
    for (const url of urls) {
      await checker.goto(`${origin}${url}`);
      await checker.addScriptTag({ content: axe });
      const violations = await checker.evaluate(async () => {
        const result = await (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string }[] }> } }
        ).axe.run();
        return result.violations.map((violation) => violation.id);
      });
      expect([url, violations]).toEqual([url, []]);
    }
    await checker.goto(`${origin}/inspector/sign-in`);
    await checking.clearCookies();
    await checker.goto(`${origin}/inspector/sign-in`);
    await checker.addScriptTag({ content: axe });
    expect(
      await checker.evaluate(
        async () =>
          (await (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe.run())
            .violations.length,
      ),
    ).toBe(0);
    await browser.close();
  } finally {
    await chrome.kill();
  }
}, 60_000);
