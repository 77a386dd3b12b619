import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { RANKER_VERSION } from "@kxm/arbiter";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { describe, expect, test } from "vitest";
import { purgeExpired } from "../src/index.js";
import { startRun } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  agentKey,
  call,
  commitAll,
  GUIDE_PROPOSAL,
  gitCheckout,
  hubPerTest,
  memoryFact,
  projectWithAgent,
  writeFiles,
} from "./helpers.js";

// Issue 20, stored packets: every packet the hub serves has an id hashing its inputs (the same inputs, the same id
// and bytes) and its audit stored without the task text, listed and read by operators. Through a real hub on a
// loopback port (the test's clock), with the contract's client, and the SQLite file read directly.

const hub = hubPerTest();
const DAY = 86_400_000;
const PROPOSAL = { ...GUIDE_PROPOSAL, evidenceRefs: [...GUIDE_PROPOSAL.evidenceRefs] };

interface Hub {
  url: string;
  admin: HubClient;
  agent: HubClient;
  key: string;
}

/**
 * The hub listening on a free loopback port, project `demo` (with a checkout of these files, if any) holding one
 * promoted state value, and an agent key.
 */
async function start(files?: Record<string, string>): Promise<Hub & { root?: string }> {
  await hub.start();
  const root = files === undefined ? undefined : await gitCheckout(hub.dir, "demo-checkout", files);
  const key = await projectWithAgent(hub.app, "demo", "agent-planner", root);
  await hub.app.listen({ host: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(hub.app.server.address() as AddressInfo).port}`;
  const admin = createHubClient({ baseUrl: url, token: ADMIN_TOKEN });
  const agent = createHubClient({ baseUrl: url, token: key });
  const { proposalId } = await agent.proposeState({ params: { project: "demo" }, body: PROPOSAL });
  await admin.promoteState({
    params: { project: "demo", proposalId },
    body: { evidenceRefs: ["review:pr-12"] },
  });
  return { url, admin, agent, key, ...(root === undefined ? {} : { root }) };
}

/** A raw `/context` answer: the bytes as served, and the packet id. */
async function served(h: Hub, body: Record<string, unknown>, project = "demo", token = h.key) {
  const response = await fetch(`${h.url}/v1/projects/${project}/context`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const id = JSON.parse(text).audit.packetId as string;
  return { text, id };
}

const REQUEST = { role: "planner", task: "Which branch do we release from?" };

/** Every text value in every table of the hub's SQLite file, as one string. */
function wholeDatabase(path: string): string {
  const requireFromStore = createRequire(
    new URL("../../../packages/state-store/package.json", import.meta.url),
  );
  const Database = requireFromStore("better-sqlite3");
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table'")
      .pluck()
      .all() as string[];
    return tables.map((table) => JSON.stringify(db.prepare(`select * from "${table}"`).all())).join("\n");
  } finally {
    db.close();
  }
}

describe("packet ids", () => {
  test("the same request over the same pool is the same packet, byte for byte; the id is the audit's last key", async () => {
    const h = await start();
    const first = await served(h, REQUEST);
    hub.clock.advance(60_000);
    const second = await served(h, REQUEST);
    expect(first.id).toMatch(/^pkt_[0-9a-f]{32}$/);
    expect(second.text).toBe(first.text);
    const audit = JSON.parse(first.text).audit as Record<string, unknown>;
    expect(Object.keys(audit).at(-1)).toBe("packetId");

    // The request's key order does not matter: the arbiter echoes it in a fixed order.
    expect((await served(h, { task: REQUEST.task, role: REQUEST.role })).id).toBe(first.id);
    // Nor does the hub restarting: the pool rebuilt from the store has the same digest.
    await hub.close();
    await hub.reopen();
    await hub.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(hub.app.server.address() as AddressInfo).port}`;
    expect((await served({ ...h, url }, REQUEST)).text).toBe(first.text);
  });

  test("the id changes with the request, a stored item, the journal and the open contradictions", async () => {
    const h = await start();
    const ids = new Set<string>();
    const base = (await served(h, REQUEST)).id;
    ids.add(base);
    ids.add((await served(h, { ...REQUEST, task: "Which branch do we release from" })).id);
    ids.add((await served(h, { ...REQUEST, budgetTokens: 4000 })).id);
    ids.add((await served(h, { ...REQUEST, role: "critic" })).id);
    expect(ids.size).toBe(4);

    // A stored item: a second proposal for another key changes the pool, even unselected.
    await h.agent.proposeState({
      params: { project: "demo" },
      body: { ...PROPOSAL, key: "deploy.window", summary: "Deploys happen on Tuesdays" },
    });
    const afterItem = (await served(h, REQUEST)).id;
    expect(ids.has(afterItem)).toBe(false);
    ids.add(afterItem);

    // A journal entry of a category the planner reads.
    const runId = await startRun(hub.app, "demo");
    const entry = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, h.key, {
      category: "decision",
      summary: "Cut the release from main",
    });
    expect(entry.statusCode, entry.body).toBe(201);
    const afterJournal = (await served(h, REQUEST)).id;
    expect(ids.has(afterJournal)).toBe(false);
    ids.add(afterJournal);

    // The run-filtered path (assembled on the spot) has an id of its own and stays stable.
    const filtered = await served(h, { ...REQUEST, runId });
    expect(ids.has(filtered.id)).toBe(false);
    expect((await served(h, { ...REQUEST, runId })).text).toBe(filtered.text);

    // A competing proposal for the same key opens a contradiction.
    await h.agent.proposeState({
      params: { project: "demo" },
      body: { ...PROPOSAL, summary: "Releases are cut from the release branch" },
    });
    await h.agent.proposeState({
      params: { project: "demo" },
      body: { ...PROPOSAL, summary: "Releases are cut from a tag" },
    });
    const afterContradiction = (await served(h, REQUEST)).id;
    expect(ids.has(afterContradiction)).toBe(false);
  });

  test("the id changes with committed memory, and with an uncommitted memory file withheld", async () => {
    const h = await start({
      ".kxm/memory/release.md": memoryFact("release", "Run the release test suite before tagging"),
    });
    const root = h.root!;
    const request = { role: "critic", task: "release test suite" };
    const committed = await served(h, request);
    expect(JSON.parse(committed.text).audit.memory.commit).toMatch(/^[0-9a-f]{40}$/);

    await writeFiles(root, {
      ".kxm/memory/deploy.md": memoryFact("deploy", "Deploys wait for the release test suite"),
    });
    const withheld = await served(h, request);
    expect(JSON.parse(withheld.text).packet.unresolvedGaps).toContain(
      "memory_withheld:untracked:.kxm/memory/deploy.md",
    );
    expect(withheld.id).not.toBe(committed.id);

    commitAll(root, "Add deploy");
    const next = await served(h, request);
    expect(next.id).not.toBe(committed.id);
    expect(next.id).not.toBe(withheld.id);
    expect(JSON.parse(next.text).audit.selectedIds).toContain("mem_deploy");
  });
});

describe("stored packets", () => {
  test("each packet's audit is stored once per id, without the task text, and read back by id", async () => {
    const h = await start();
    const task = "Which branch do we release from? zebra-quartz-7731";
    const first = await served(h, { ...REQUEST, task });
    hub.clock.advance(5_000);
    await served(h, { ...REQUEST, task });
    const { audit } = JSON.parse(first.text);

    const { packet } = await h.admin.getPacket({ params: { project: "demo", packetId: first.id } });
    expect(packet).toMatchObject({
      packetId: first.id,
      project: "demo",
      runId: null,
      rankerVersion: RANKER_VERSION,
      firstServedAt: "2026-10-01T09:00:00.000Z",
      lastServedAt: "2026-10-01T09:00:05.000Z",
      timesServed: 2,
    });
    expect(packet.requestSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(packet.changeSeq).toBeGreaterThan(0);
    // Every key of the audit but the id, in order, the task replaced by its length.
    const { packetId: _, request, ...rest } = audit;
    const { task: taskText, ...requestRest } = request;
    expect(taskText).toBe(task);
    expect(packet.audit).toEqual({ request: { ...requestRest, taskChars: task.length }, ...rest });
    expect(Object.keys(packet.audit)).toEqual(Object.keys(audit).filter((key) => key !== "packetId"));

    // The task text is nowhere in the database, nor is its distinctive word.
    await hub.close();
    const everything = wholeDatabase(hub.dbPath);
    expect(everything).toContain(first.id);
    expect(everything).not.toContain("zebra-quartz");
  });

  test("listed per project and per run, last served first, a page at a time", async () => {
    const h = await start();
    const runId = await startRun(hub.app, "demo");
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      hub.clock.advance(1_000);
      made.push(
        (await served(h, { ...REQUEST, task: `release branch ${i}`, ...(i % 2 ? { runId } : {}) })).id,
      );
    }
    const all = await h.admin.listPackets({ params: { project: "demo" }, query: {} });
    expect(all.packets.map((p) => p.packetId)).toEqual([...made].reverse());
    expect(all.nextCursor).toBeUndefined();

    const page1 = await h.admin.listPackets({ params: { project: "demo" }, query: { limit: 2 } });
    expect(page1.packets.map((p) => p.packetId)).toEqual([made[4], made[3]]);
    const page2 = await h.admin.listPackets({
      params: { project: "demo" },
      query: { limit: 2, cursor: page1.nextCursor! },
    });
    expect(page2.packets.map((p) => p.packetId)).toEqual([made[2], made[1]]);
    const page3 = await h.admin.listPackets({
      params: { project: "demo" },
      query: { limit: 2, cursor: page2.nextCursor! },
    });
    expect(page3.packets.map((p) => p.packetId)).toEqual([made[0]]);
    expect(page3.nextCursor).toBeUndefined();

    const run = await h.admin.listPackets({ params: { project: "demo" }, query: { runId } });
    expect(run.packets.map((p) => [p.packetId, p.runId])).toEqual([
      [made[3], runId],
      [made[1], runId],
    ]);

    // Serving a packet again moves it to the front.
    hub.clock.advance(1_000);
    await served(h, { ...REQUEST, task: "release branch 0" });
    const again = await h.admin.listPackets({ params: { project: "demo" }, query: { limit: 1 } });
    expect(again.packets.map((p) => [p.packetId, p.timesServed])).toEqual([[made[0], 2]]);

    const bad = await call(hub.app, "GET", "/v1/projects/demo/packets?cursor=not-a-cursor", ADMIN_TOKEN);
    expect([bad.statusCode, bad.json().code]).toEqual([400, "invalid_request"]);
  });

  test("concurrent packets are all stored (a turn's in one transaction)", async () => {
    const h = await start();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => served(h, { ...REQUEST, task: `release ${i}` })),
    );
    const listed = await h.admin.listPackets({ params: { project: "demo" }, query: { limit: 50 } });
    expect(listed.packets.map((p) => p.packetId).sort()).toEqual(answers.map((a) => a.id).sort());
  });

  test("operators only: an agent key is refused, another project's packet is not found", async () => {
    const h = await start();
    const { id } = await served(h, REQUEST);
    for (const url of ["/v1/projects/demo/packets", `/v1/projects/demo/packets/${id}`]) {
      const refused = await call(hub.app, "GET", url, h.key);
      expect([refused.statusCode, refused.json().code], url).toEqual([401, "invalid_auth"]);
    }
    const operator = await call(hub.app, "POST", "/v1/operators", ADMIN_TOKEN, { name: "alice" });
    const token = operator.json().token as string;
    const asOperator = await call(hub.app, "GET", `/v1/projects/demo/packets/${id}`, token);
    expect(asOperator.statusCode, asOperator.body).toBe(200);

    await call(hub.app, "POST", "/v1/projects", ADMIN_TOKEN, { id: "other" });
    const otherKey = await agentKey(hub.app, "other", "agent-other");
    const elsewhere = await served(h, REQUEST, "other", otherKey);
    expect(elsewhere.id).not.toBe(id);
    const missing = await call(hub.app, "GET", `/v1/projects/other/packets/${id}`, ADMIN_TOKEN);
    expect([missing.statusCode, missing.json().code]).toEqual([404, "not_found"]);
    const listed = await h.admin.listPackets({ params: { project: "other" }, query: {} });
    expect(listed.packets.map((p) => p.packetId)).toEqual([elsewhere.id]);
    const malformed = await call(hub.app, "GET", "/v1/projects/demo/packets/pkt_XYZ", ADMIN_TOKEN);
    expect([malformed.statusCode, malformed.json().code]).toEqual([400, "invalid_request"]);
  });

  test("retention purges packets not served for the retention period", async () => {
    const h = await start();
    const old = await served(h, REQUEST);
    const kept = await served(h, { ...REQUEST, task: "release branch" });
    hub.clock.advance(60 * DAY);
    await served(h, { ...REQUEST, task: "release branch" });
    hub.clock.advance(31 * DAY);
    expect(await purgeExpired(hub.app)).toMatchObject({ packets: 1 });
    const listed = await h.admin.listPackets({ params: { project: "demo" }, query: {} });
    expect(listed.packets.map((p) => p.packetId)).toEqual([kept.id]);
    const gone = await call(hub.app, "GET", `/v1/projects/demo/packets/${old.id}`, ADMIN_TOKEN);
    expect(gone.statusCode).toBe(404);
  });
});
