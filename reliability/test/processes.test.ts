import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, projectWithAgent, proposal } from "../src/lib/http.mjs";
import type { HubProcess } from "../src/lib/hub-process.mjs";
import {
  currentIds,
  expectCall,
  packetsFromEvery,
  startHubs,
  unflaggedDoubleCurrent,
} from "../src/lib/processes.mjs";

// Two real hub processes (the built CLI's `kxm hub serve`) on one SQLite file: each must see the other's writes
// before it answers (decision 0006). Needs the workspace built, as the reliability suite does.
const ADMIN = "processes-test-admin-token-0123456789abcdef";
const PROJECT = "shared";
const KEY = "release.branch";
const REQUEST = { role: "planner", task: "which release branch do releases come from" };

let dir: string;
let hubs: HubProcess[];
let agent: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kxm-processes-"));
  hubs = await startHubs(2, { dbPath: join(dir, "kxm.db"), adminToken: ADMIN });
  agent = await projectWithAgent(hubs[0]!.url, ADMIN, PROJECT);
}, 60_000);

afterAll(async () => {
  await Promise.all((hubs ?? []).map((hub) => hub.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** Both hubs' packets: byte for byte the same, with at most one current value of the key, or a flagged pair. */
async function agreedPacket() {
  const [a, b] = await packetsFromEvery(hubs, PROJECT, agent, REQUEST);
  expect(b!.text).toBe(a!.text);
  expect(unflaggedDoubleCurrent(a!.json.packet)).toEqual([]);
  return a!.json.packet;
}

describe("two hub processes on one database", () => {
  test("proposals and promotions of one key alternating between the hubs: one current value, equal packets", async () => {
    // Both hubs load the project's pool first, so neither reads the other's writes at load time.
    await agreedPacket();
    let previous: string | undefined;
    for (let round = 0; round < 6; round += 1) {
      const proposer = hubs[round % 2]!;
      const promoter = hubs[(round + 1) % 2]!;
      const proposed = await expectCall(
        proposer.url,
        "POST",
        `/v1/projects/${PROJECT}/state/proposals`,
        201,
        {
          token: agent,
          body: proposal(KEY, `Releases are cut from branch release-${round}`),
        },
      );
      // After the proposal only: the old value is still the one current value, on both hubs.
      const pending = await agreedPacket();
      expect(currentIds(pending, KEY)).toEqual(previous === undefined ? [] : [previous]);

      const promoted = await expectCall(
        promoter.url,
        "POST",
        `/v1/projects/${PROJECT}/state/proposals/${proposed.proposalId}/promote`,
        200,
        { token: ADMIN, body: { evidenceRefs: [`review:${round}`] } },
      );
      const packet = await agreedPacket();
      expect(currentIds(packet, KEY)).toEqual([promoted.state.id]);
      expect(packet.contradictions).toEqual([]);
      previous = promoted.state.id;

      // Recall on the hub that did not promote finds the new value, and the old one as superseded.
      const recalled = await expectCall(proposer.url, "POST", `/v1/projects/${PROJECT}/recall`, 200, {
        token: agent,
        body: { query: "release branch", limit: 50 },
      });
      const hit = recalled.items.find((item: { id: string }) => item.id === promoted.state.id);
      expect(hit?.status).toBe("current");
    }
  });

  test("a journal entry written through one hub is in the other's packets and recall", async () => {
    await expectCall(hubs[0]!.url, "POST", `/v1/projects/${PROJECT}/runs`, 201, {
      token: agent,
      body: { workflow: "release", runId: "run-journal" },
    });
    await agreedPacket();
    const written = await expectCall(
      hubs[1]!.url,
      "POST",
      `/v1/projects/${PROJECT}/runs/run-journal/journal`,
      201,
      { token: agent, body: { category: "decision", summary: "Release branches are cut on Mondays" } },
    );
    const itemId = `journal_${written.entry.id}`;
    const packet = await agreedPacket();
    const selected = Object.values(packet)
      .filter(Array.isArray)
      .flat()
      .map((item) => (item as { id?: string }).id);
    expect(selected).toContain(itemId);
    const recalled = await expectCall(hubs[0]!.url, "POST", `/v1/projects/${PROJECT}/recall`, 200, {
      token: agent,
      body: { query: "release branches mondays", limit: 50 },
    });
    expect(recalled.items.map((item: { id: string }) => item.id)).toContain(itemId);
  });

  test("a project removed through one hub answers 404 on the other", async () => {
    const agentKey = await projectWithAgent(hubs[0]!.url, ADMIN, "doomed");
    for (const hub of hubs) {
      const packet = await call(hub.url, "POST", "/v1/projects/doomed/context", {
        token: agentKey,
        body: REQUEST,
      });
      expect(packet.status).toBe(200);
    }
    await expectCall(hubs[1]!.url, "DELETE", "/v1/projects/doomed?force=true", 200, { token: ADMIN });
    const after = await call(hubs[0]!.url, "POST", "/v1/projects/doomed/context", {
      token: ADMIN,
      body: REQUEST,
    });
    expect(after.status).toBe(404);
  });
});
