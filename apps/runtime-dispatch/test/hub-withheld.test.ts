import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readHubEnv, type ServingHub, serveHub } from "@kxm/hub";
import { freePort } from "@kxm/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderStep } from "../src/dispatch/dispatch.js";
import {
  buildRun,
  executeRun,
  hubReporter,
  hubWithheld,
  readManifests,
  type WithheldLookup,
} from "../src/index.js";
import { commitAll, gitRepo, NOW, promotedSkill, put, putFact, tempDir, workflow } from "./support/repo.js";

// Dispatch context leaves out what the run's hub withholds (decision 0017), and each step report carries the
// step's manifest: a real hub in this process on a loopback port, with a real SQLite file, serving the run's own
// git checkout.

const ADMIN = "admin-token-for-dispatch-tests-0123456789";
const PNPM = "Use pnpm, not npm, in this repository";
const CHANGELOG = "Keep the changelog in the repository root";
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

let hub: ServingHub;
let root: string;
let key: string;
let skillId: string;

/** An admin call that must succeed; answers the hub's JSON as `T`. */
async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
}

type Revoked = { revocation: { id: string } };

beforeEach(async () => {
  root = await gitRepo();
  await putFact(root, "use-pnpm", { summary: PNPM });
  await putFact(root, "keep-changelog", { summary: CHANGELOG, kind: "convention" });
  skillId = `skill_${await promotedSkill(root, "release-notes", "Draft release notes from merged pull requests")}`;
  const agents = [process.execPath, FAKE_AGENT];
  await put(
    root,
    ".kxm/agents.yaml",
    `agents:\n  planner:\n    command: ${JSON.stringify(agents)}\n  implementer:\n    command: ${JSON.stringify(agents)}\n`,
  );
  commitAll(root, "memory");
  hub = await serveHub({
    env: readHubEnv({
      KXM_AUTH_TOKEN: ADMIN,
      KXM_DB_PATH: join(await tempDir("kxm-dispatch-hubdb-"), "kxm.db"),
      KXM_HOST: "127.0.0.1",
      KXM_PORT: "0",
      KXM_LOG_LEVEL: "silent",
    }),
    handleSignals: false,
  });
  await admin("POST", "/v1/projects", { id: "demo", checkoutRoot: root });
  key = (await admin<{ key: string }>("POST", "/v1/projects/demo/agents", { agentId: "agent-runner" })).key;
});

afterEach(async () => {
  await hub.close();
});

async function implementStep(withheld?: WithheldLookup) {
  // Built, not written: each call is a fresh attempt 1 of the same pinned run.
  const run = await buildRun(root, {
    workflow: workflow(),
    prompt: "Fix it.",
    now: NOW,
    runId: "run_test",
    project: "demo",
  });
  const { context, rendered } = await renderStep({
    root,
    run,
    stepId: "implement",
    attempt: 1,
    now: NOW,
    ...(withheld === undefined ? {} : { withheld }),
  });
  return { gaps: context.gaps, prompt: rendered.prompt, skills: context.skills.map(({ item }) => item.id) };
}

describe("dispatch context with a hub", () => {
  it("leaves out the authored fact and skill the hub revoked, counts them, and serves the rest", async () => {
    const without = await implementStep();
    expect(without.prompt).toContain(PNPM);
    expect(without.skills).toEqual([skillId]);

    const fact = await admin<Revoked>("POST", "/v1/projects/demo/revocations", {
      target: "item",
      value: "mem_use-pnpm",
      reason: "npm is back",
    });
    const skill = await admin<Revoked>("POST", "/v1/projects/demo/revocations", {
      target: "item",
      value: skillId,
      reason: "stale",
    });
    const lookup = hubWithheld({ url: hub.url, token: key });
    const withheld = await implementStep(lookup);
    expect(withheld.prompt).not.toContain(PNPM);
    expect(withheld.prompt).toContain(CHANGELOG);
    expect(withheld.skills).toEqual([]);
    expect(withheld.gaps).toEqual(["dispatch_context_items_withheld:revoked:2"]);

    // Asked at each step attempt: once lifted, the next attempt serves them again.
    await admin("POST", `/v1/projects/demo/revocations/${fact.revocation.id}/lift`, { reason: "checked" });
    await admin("POST", `/v1/projects/demo/revocations/${skill.revocation.id}/lift`, { reason: "checked" });
    const lifted = await implementStep(lookup);
    expect(lifted.prompt).toContain(PNPM);
    expect(lifted.skills).toEqual([skillId]);
    expect(lifted.gaps).toEqual([]);
  });

  it("serves no authored item when the hub cannot be reached or refuses, and says so", async () => {
    const closed = hubWithheld({ url: `http://127.0.0.1:${await freePort()}`, token: key });
    const refused = hubWithheld({ url: hub.url, token: "not-a-key-of-this-hub" });
    for (const lookup of [closed, refused]) {
      const step = await implementStep(lookup);
      expect(step.gaps).toEqual(["dispatch_context_withheld:hub_unreachable"]);
      expect(step.prompt).not.toContain(PNPM);
      expect(step.prompt).not.toContain(CHANGELOG);
      expect(step.skills).toEqual([]);
    }
  });

  it("leaves what the hub withholds out of every step of a run", async () => {
    await admin("POST", "/v1/projects/demo/items/mem_keep-changelog/forget", { reason: "wrong" });
    const out = await tempDir("kxm-fake-agent-out-");
    const executed = await executeRun({
      root,
      workflow: workflow(),
      prompt: "Fix the flaky release test.",
      runId: "run_withheld",
      project: "demo",
      now: () => NOW,
      env: { ...process.env, FAKE_AGENT_OUT: out },
      withheld: hubWithheld({ url: hub.url, token: key }),
    });
    expect(executed.outcome.status).toBe("succeeded");
    const manifests = await readManifests(root, "run_withheld");
    expect(manifests.map((manifest) => [manifest.stepId, manifest.gaps])).toEqual([
      ["plan", ["dispatch_context_items_withheld:forgotten:1"]],
      ["implement", ["dispatch_context_items_withheld:forgotten:1"]],
    ]);
    expect(manifests.flatMap((manifest) => manifest.items.map((item) => item.id))).not.toContain(
      "mem_keep-changelog",
    );
  }, 30_000);

  it("reports each step's manifest with its journal entry, and the inspector's run page shows it", async () => {
    await admin("POST", "/v1/projects/demo/revocations", { target: "item", value: skillId, reason: "stale" });
    const out = await tempDir("kxm-fake-agent-out-");
    const target = { url: hub.url, token: key };
    const executed = await executeRun({
      root,
      workflow: workflow(),
      prompt: "Fix the flaky release test.",
      runId: "run_reported",
      project: "demo",
      now: () => NOW,
      env: { ...process.env, FAKE_AGENT_OUT: out },
      withheld: hubWithheld(target),
      reporter: hubReporter(target),
    });
    expect(executed.steps.map((step) => step.hub)).toEqual(["reported", "reported"]);
    const manifests = await readManifests(root, "run_reported");
    expect(manifests.map((manifest) => [manifest.stepId, manifest.gaps])).toEqual([
      ["plan", ["dispatch_context_items_withheld:revoked:1"]],
      ["implement", ["dispatch_context_items_withheld:revoked:1"]],
    ]);
    expect(manifests[1]!.items.map((item) => item.id)).toContain("mem_use-pnpm");

    const signedIn = await fetch(`${hub.url}/inspector/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: ADMIN }).toString(),
      redirect: "manual",
    });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`${hub.url}/inspector/projects/demo/runs/run_reported`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const manifest of manifests) {
      expect(html).toContain(`<h3>Step ${manifest.stepId}, attempt ${manifest.attempt}</h3>`);
      expect(html).toContain(
        `<dt>Agent</dt><dd><code>${manifest.agent}</code>, role ${manifest.role}</dd>\n<dt>Memory revision</dt><dd><code>${manifest.memoryRevision}</code></dd>\n<dt>Tokens</dt><dd>${manifest.packetTokens} in the packet, ${manifest.promptTokens} in the prompt</dd>\n<dt>Gaps</dt><dd><code>dispatch_context_items_withheld:revoked:1</code></dd>`,
      );
      for (const { id, section, characters, score } of manifest.items) {
        // Authored memory is the hub's too, so it links to its item page; the runner's own episodes are not.
        const shown = id.startsWith("mem_")
          ? `<a href="/inspector/projects/demo/items/${id}"><code>${id}</code></a>`
          : `<code>${id}</code>`;
        expect(html).toContain(
          `<td>${section}</td>\n<td>${shown}</td>\n<td class="num">${characters}</td>\n<td class="num">${score}</td>`,
        );
      }
    }
    // Ids and counts, never the text the prompt carried.
    expect(html).not.toContain(PNPM);
  }, 30_000);
});
