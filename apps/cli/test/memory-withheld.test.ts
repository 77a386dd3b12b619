import { createHubClient } from "@kxm/contract/client";
import type { ServingHub } from "@kxm/hub";
import { defaultProjectId } from "@kxm/memory-git";
import { freePort } from "@kxm/test-support";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hubWithheld } from "../src/memory-withheld.js";
import { commitAll, gitRepo, json, kxm, memoryFile, put, read } from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm memory brief` and `kxm memory sync` with a hub configured leave out the facts it withholds (decision 0017):
// the built CLI against a real hub serving the same real git checkout.

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

let hub: ServingHub;
let checkout: string;
let agentKey: string;
/** The project id the checkout goes by without --project: its folder's name. */
let project: string;

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  checkout = await gitRepo("kxm-cli-withheld-");
  await put(checkout, ".kxm/memory/release.md", memoryFile("release", { summary: "Tag releases from main" }));
  await put(checkout, ".kxm/memory/deploy.md", memoryFile("deploy", { summary: "Deploy on Tuesdays" }));
  await put(checkout, ".kxm/memory/keep.md", memoryFile("keep", { summary: "Keep the changelog short" }));
  await put(checkout, "AGENTS.md", "# Agents\n");
  await commitAll(checkout, "memory");
  project = defaultProjectId(checkout);
  const admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  await admin.createProject({ body: { id: project, checkoutRoot: checkout } });
  agentKey = (await admin.createAgentKey({ params: { project }, body: { agentId: "agent-a" } })).key;
  await admin.revoke({
    params: { project },
    body: { target: "item", value: "mem_release", reason: "wrong branch" },
  });
  await admin.forget({ params: { project, itemId: "mem_deploy" }, body: { reason: "wrong day" } });
});

afterAll(async () => {
  await hub?.close();
});

describe("memory brief and sync with a hub", () => {
  test("sync writes only the served facts and says what it left out", async () => {
    const synced = await kxm(["memory", "sync", "--hub", hub.url, "--project", project], {
      cwd: checkout,
      env: { KXM_AGENT_KEY: agentKey },
    });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toBe(
      "AGENTS.md: appended the block\nLeft out 2 facts the hub withholds: 1 revoked, 1 forgotten\n",
    );
    const agents = await read(checkout, "AGENTS.md");
    expect(agents).toContain("Keep the changelog short (`keep`)");
    expect(agents).not.toContain("Tag releases from main");
    expect(agents).not.toContain("Deploy on Tuesdays");
  });

  test("brief as the SessionStart hook runs it, with KXM_HUB_URL, leaves them out and counts them", async () => {
    // No flag but --json: the fast path hands a configured hub over to oclif; the project is the folder's name.
    const brief = await kxm(["memory", "brief", "--json"], {
      cwd: checkout,
      env: { KXM_HUB_URL: hub.url, KXM_AGENT_KEY: agentKey },
    });
    expect(brief.code, brief.stderr).toBe(0);
    expect(json(brief)).toMatchObject({
      count: 1,
      text: "Project memory (1 active fact)\n\n• [project] [convention] Keep the changelog short (keep)",
      withheld: { revoked: 1, forgotten: 1 },
    });
  });

  test("a hub that cannot be reached fails the command before anything is read or written", async () => {
    await expect(hubWithheld(`http://127.0.0.1:${await freePort()}`, project)).rejects.toMatchObject({
      code: "hub_unreachable",
    });
  });
});
