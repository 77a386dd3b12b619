import { tempPostgresDatabase } from "@kxm/test-support";
import postgres from "postgres";
import { afterEach, describe, expect, test } from "vitest";
import { ADMIN_TOKEN, call, projectWithAgent, proposal } from "../src/lib/http.mjs";
import { type HubProcess, startHubProcess } from "../src/lib/hub-process.mjs";
import {
  currentIds,
  expectCall,
  logEvents,
  namedConnections,
  packetsFromEvery,
  startHubs,
  unflaggedDoubleCurrent,
} from "../src/lib/processes.mjs";

// Two real hub processes (the built CLI's `kxm hub serve`) on one PostgreSQL database, as behind a load balancer
// (decision 0020): each answers as if it were the only one, its listener's outage loses nothing, and a hub killed
// mid-write loses nothing it acknowledged. Needs the workspace built; runs in the "postgres" project only.
const PROJECT = "shared";
const REQUEST = { role: "planner", task: "which release branch and deploy window do releases use" };

let hubs: HubProcess[] = [];
let agent: string;
let sql: postgres.Sql | undefined;

/** Two hubs on a new database with the project registered; the database's URL. */
async function twoHubs(logLevel?: string): Promise<string> {
  const url = await tempPostgresDatabase();
  hubs = await startHubs(2, { databaseUrl: url, adminToken: ADMIN_TOKEN, ...(logLevel ? { logLevel } : {}) });
  agent = await projectWithAgent(hubs[0]!.url, ADMIN_TOKEN, PROJECT);
  return url;
}

// Runs before the database is dropped (hooks run in reverse order; the drop was registered first).
afterEach(async () => {
  await Promise.all(hubs.map((hub) => hub.stop("SIGKILL")));
  hubs = [];
  await sql?.end();
  sql = undefined;
});

/** Every hub's packet: byte for byte the same, with at most one current value per key. */
async function agreedPacket(from: readonly HubProcess[] = hubs) {
  const packets = await packetsFromEvery(from, PROJECT, agent, REQUEST);
  for (const packet of packets) expect(packet.text).toBe(packets[0]!.text);
  expect(unflaggedDoubleCurrent(packets[0]!.json.packet)).toEqual([]);
  return packets[0]!.json.packet;
}

async function propose(hub: HubProcess, key: string, summary: string): Promise<string> {
  const proposed = await expectCall(hub.url, "POST", `/v1/projects/${PROJECT}/state/proposals`, 201, {
    token: agent,
    body: proposal(key, summary),
  });
  return proposed.proposalId;
}

function promote(hub: HubProcess, proposalId: string) {
  return call(hub.url, "POST", `/v1/projects/${PROJECT}/state/proposals/${proposalId}/promote`, {
    token: ADMIN_TOKEN,
    body: { evidenceRefs: ["review:pr-12"] },
  });
}

interface HistoryItem {
  id: string;
  status: string;
  validFrom?: string;
  validUntil?: string;
}

async function history(hub: HubProcess, key: string): Promise<HistoryItem[]> {
  const answer = await expectCall(hub.url, "GET", `/v1/projects/${PROJECT}/state/${key}/history`, 200, {
    token: agent,
  });
  return answer.items;
}

describe("two hub processes on one PostgreSQL database", () => {
  test("a promotion acknowledged by one hub is in the other's very next packet", async () => {
    await twoHubs();
    await agreedPacket();
    for (let round = 0; round < 20; round += 1) {
      const [writer, reader] = round % 2 === 0 ? [hubs[0]!, hubs[1]!] : [hubs[1]!, hubs[0]!];
      const proposalId = await propose(writer, "release.branch", `Releases are cut from release-${round}`);
      const promoted = await promote(writer, proposalId);
      expect(promoted.status).toBe(200);
      // No pause: the reader must not depend on having heard the notification yet.
      const [read] = await packetsFromEvery([reader], PROJECT, agent, REQUEST);
      expect(currentIds(read!.json.packet, "release.branch")).toEqual([promoted.json.state.id]);
      const packet = await agreedPacket();
      expect(currentIds(packet, "release.branch")).toEqual([promoted.json.state.id]);
    }
  });

  test("promotions of one key through both hubs at once leave exactly one current value", async () => {
    await twoHubs();
    await agreedPacket();
    const key = "deploy.window";
    for (let round = 0; round < 8; round += 1) {
      const ids = await Promise.all(
        hubs.map((hub, side) => propose(hub, key, `Deploys run in window ${round}-${side}`)),
      );
      const answers = await Promise.all(ids.map((id, side) => promote(hubs[side]!, id)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const promoted = answers.map((answer) => answer.json.state.id as string);

      // The writer lock orders them: the later one supersedes the earlier, exactly where it begins.
      const items = await history(hubs[round % 2]!, key);
      const mine = items.filter((item) => promoted.includes(item.id));
      const current = mine.filter((item) => item.status === "current");
      expect(items.filter((item) => item.status === "current")).toEqual(current);
      expect(current).toHaveLength(1);
      const winner = current[0]!;
      const losers = mine.filter((item) => item.id !== winner.id);
      expect(losers).toHaveLength(1);
      expect(losers[0]?.status).toBe("superseded");
      expect(winner.validFrom).toEqual(expect.any(String));
      expect(losers[0]?.validUntil).toBe(winner.validFrom);

      const packet = await agreedPacket();
      expect(currentIds(packet, key)).toEqual([winner.id]);
      for (const hub of hubs) {
        const state = await expectCall(hub.url, "GET", `/v1/projects/${PROJECT}/state/${key}`, 200, {
          token: agent,
        });
        expect(state.state.id).toBe(winner.id);
      }
    }
  });

  test("a hub whose listener was cut catches up on reconnecting, before any request", async () => {
    const url = await twoHubs("debug");
    const [a, b] = [hubs[0]!, hubs[1]!];
    await agreedPacket();
    sql = postgres(url, { max: 1, onnotice: () => {} });
    // postgres.js listens with `listen "kxm_changes"` on a connection of its own; hub 1 names its connections.
    const listeners = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where application_name = 'kxm-hub-1' and query ilike 'listen%'`;
    expect(listeners).toHaveLength(1);

    // B is paused so that it cannot reconnect before the write: its listener is down while A commits.
    b.child.kill("SIGSTOP");
    let seq: number;
    let promotedId: string;
    const mark = logEvents(b).length;
    try {
      const [terminated] = await sql<{ done: boolean }[]>`
        select pg_terminate_backend(${listeners[0]!.pid}::int, 5000) as done`;
      expect(terminated?.done).toBe(true);
      const proposalId = await propose(a, "release.branch", "Releases are cut from release-after-the-outage");
      const promoted = await promote(a, proposalId);
      expect(promoted.status).toBe(200);
      promotedId = promoted.json.state.id;
      const [head] = await sql<{ seq: string }[]>`select seq::text from change_head`;
      seq = Number(head!.seq);
    } finally {
      b.child.kill("SIGCONT");
    }

    // No request reaches B: only its reconnection can bring the write to its pools.
    const deadline = Date.now() + 15_000;
    let caughtUp: Record<string, unknown> | undefined;
    while (caughtUp === undefined && Date.now() < deadline) {
      const since = logEvents(b).slice(mark);
      const reconnected = since.findIndex(
        (event) => event.event === "change_listener_connected" && event.reconnected === true,
      );
      if (reconnected >= 0) {
        caughtUp = since
          .slice(reconnected + 1)
          .find((event) => event.event === "pools_caught_up" && Number(event.head) >= seq);
      }
      if (caughtUp === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(caughtUp, `hub B's log since the cut:\n${b.log().slice(-2000)}`).toBeDefined();
    // B answered one request in all, the packet before the cut.
    expect(logEvents(b).filter((event) => event.event === "request")).toHaveLength(1);

    const [read] = await packetsFromEvery([b], PROJECT, agent, REQUEST);
    expect(currentIds(read!.json.packet, "release.branch")).toEqual([promotedId]);
    // The new listener hears what follows.
    const listening = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where application_name = 'kxm-hub-1' and query ilike 'listen%'`;
    expect(listening).toHaveLength(1);
    expect(listening[0]!.pid).not.toBe(listeners[0]!.pid);
  });

  test("a hub killed mid-write loses nothing it acknowledged", async () => {
    const url = await twoHubs();
    const [a, b] = [hubs[0]!, hubs[1]!];
    await agreedPacket();
    const clients = 4;
    for (let client = 0; client < clients; client += 1) {
      await expectCall(a.url, "POST", `/v1/projects/${PROJECT}/runs`, 201, {
        token: agent,
        body: { workflow: "release", runId: `run-${client}` },
      });
    }
    const proposals = new Map<string, string>(); // proposal id -> key
    const promotions = new Map<string, string>(); // promoted state id -> key
    const entries: string[] = [];
    let acknowledged = 0;
    let killed: Promise<unknown> | undefined;
    const killAfter = 30;

    /** One client: proposal, promotion, journal entry, again, until the hub stops answering. */
    async function client(n: number): Promise<void> {
      const key = `deploy.window.client-${n}`;
      for (let round = 0; ; round += 1) {
        try {
          const proposed = await call(a.url, "POST", `/v1/projects/${PROJECT}/state/proposals`, {
            token: agent,
            body: proposal(key, `Deploys of client ${n} run in window ${round}`),
          });
          expect(proposed.status).toBe(201);
          proposals.set(proposed.json.proposalId, key);
          const promoted = await promote(a, proposed.json.proposalId);
          expect(promoted.status).toBe(200);
          promotions.set(promoted.json.state.id, key);
          const written = await call(a.url, "POST", `/v1/projects/${PROJECT}/runs/run-${n}/journal`, {
            token: agent,
            body: { category: "decision", summary: `Client ${n} chose window ${round}` },
          });
          expect(written.status).toBe(201);
          entries.push(written.json.entry.id);
        } catch (error) {
          // Only the kill may end a client: a refused connection or a reset after it, never a status.
          if (killed === undefined || (error instanceof Error && error.name === "AssertionError"))
            throw error;
          return;
        }
        acknowledged = proposals.size + promotions.size + entries.length;
        if (acknowledged >= killAfter && killed === undefined) killed = a.stop("SIGKILL");
      }
    }
    await Promise.all(Array.from({ length: clients }, (_, n) => client(n)));
    expect(await killed).toEqual({ code: null, signal: "SIGKILL" });
    expect(acknowledged).toBeGreaterThanOrEqual(killAfter);

    // Through B: every acknowledged proposal and promotion in its key's history, every entry in the pool.
    for (let n = 0; n < clients; n += 1) {
      const key = `deploy.window.client-${n}`;
      const held = new Set((await history(b, key)).map((item) => item.id));
      for (const [id, of] of [...proposals, ...promotions]) if (of === key) expect(held).toContain(id);
      const current = (await history(b, key)).filter((item) => item.status === "current");
      expect(current.length).toBeLessThanOrEqual(1);
    }
    for (const entry of entries) {
      const explained = await expectCall(
        b.url,
        "GET",
        `/v1/projects/${PROJECT}/items/journal_${entry}/explain`,
        200,
        {
          token: ADMIN_TOKEN,
        },
      );
      expect(explained.exists).toBe(true);
    }
    await agreedPacket([b]);

    // A restarted on the same database serves what B serves.
    const again = await startHubProcess({
      databaseUrl: namedConnections(url, "kxm-hub-0"),
      adminToken: ADMIN_TOKEN,
      env: { KXM_LOG_LEVEL: "silent", KXM_RATE_LIMIT: "100000" },
    });
    hubs = [again, b];
    const packet = await agreedPacket();
    // Each client promoted one after another: its key's current value is its last acknowledged promotion, or one
    // that committed as the hub died, before its answer was sent.
    for (let n = 0; n < clients; n += 1) {
      const key = `deploy.window.client-${n}`;
      const acked = [...promotions].filter(([, of]) => of === key).map(([id]) => id);
      const shown = currentIds(packet, key);
      expect(shown).toHaveLength(acked.length === 0 ? shown.length : 1);
      if (acked.length > 0 && !shown.includes(acked.at(-1)!)) expect(acked).not.toContain(shown[0]);
    }
  });
});
