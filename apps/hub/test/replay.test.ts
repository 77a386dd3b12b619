import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { factText } from "@kxm/test-support";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { startRun } from "./fixtures.js";
import {
  ADMIN_TOKEN,
  call,
  commitAll,
  gitCheckout,
  hubPerTest,
  projectWithAgent,
  proposeAndPromote,
  runSql,
  writeFiles,
} from "./helpers.js";

// Replay (issue 20, decision 0016): a stored packet rebuilt from history gives the bytes `/context` answered, after
// later promotions, journal writes, memory commits, revocations, forgetting and the clock passing an expiry; or it
// names the input that can no longer be had. A real hub through `inject`, a real SQLite file, a real git checkout.

const hub = hubPerTest();

function fact(id: string, summary: string, extra: Record<string, string> = {}): string {
  return factText({
    id,
    scope: "project",
    summary: JSON.stringify(summary),
    provenance: "\n  sourceType: git\n  sourceRef: docs/release.md",
    evidenceRefs: "[]",
    ...extra,
  });
}

const REQUEST = { role: "critic", task: "Which branch do we release from, and what do we test?" };

/** A served packet: the bytes as answered, and its id. */
async function serve(key: string, body: Record<string, unknown> = REQUEST) {
  const response = await call(hub.app, "POST", "/v1/projects/demo/context", key, body);
  expect(response.statusCode, response.body).toBe(200);
  return { text: response.body, id: response.json().audit.packetId as string };
}

/** The replay route's answer for a packet id and a task. */
function replay(packetId: string, task: string, token = ADMIN_TOKEN) {
  return call(hub.app, "POST", `/v1/projects/demo/packets/${packetId}/replay`, token, { task });
}

async function expectReplayed(packet: { text: string; id: string }, task = REQUEST.task) {
  const response = await replay(packet.id, task);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.body).toBe(packet.text);
}

async function expectProblem(response: Awaited<ReturnType<typeof replay>>, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(response.json().code).toBe(code);
  return response.json().detail as string;
}

/** Proposes `summary` for `stateKey` as the agent, promotes it as the admin; answers the new current item's id. */
async function promote(key: string, stateKey: string, summary: string) {
  return (await proposeAndPromote(hub.app, key, { key: stateKey, summary })).state.id;
}

/** A statement on the hub's SQLite file (helpers.ts). */
const sql = (statement: string, ...params: unknown[]) => runSql(hub.dbPath, statement, ...params);

/** Project `demo` with a checkout holding a fact that expires and one due for review, and an agent key. */
async function demo(): Promise<{ key: string; root: string }> {
  await hub.start();
  const root = await gitCheckout(hub.dir, "demo-checkout", {
    ".kxm/memory/release.md": fact("release", "Releases are cut from the release branch", {
      reviewBy: "2026-10-05",
      expiresAt: "2026-10-10T12:00:00Z",
    }),
    ".kxm/memory/testing.md": fact("testing", "Run the release test suite before a release"),
  });
  const key = await projectWithAgent(hub.app, "demo", "agent-critic", root);
  return { key, root };
}

describe("replaying a stored packet", () => {
  test("gives the served bytes after later promotions, journal writes, memory commits, revocation and expiry", async () => {
    const { key, root } = await demo();
    await promote(key, "release.branch", "Releases are cut from the main branch");
    const first = await serve(key);
    const runId = await startRun(hub.app, "demo");
    const journal = await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
      category: "decision",
      summary: "Release from main while the freeze holds",
    });
    expect(journal.statusCode, journal.body).toBe(201);
    // A packet of one run's journal goes through the plain assembly: it replays too.
    const filtered = await serve(key, { ...REQUEST, runId });

    // Everything moves on: a new value, a new journal entry, a new memory commit, a revocation, the clock.
    await promote(key, "release.branch", "Releases are cut from the release branch");
    await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
      category: "decision",
      summary: "The release test suite runs nightly",
    });
    await writeFiles(root, { ".kxm/memory/ci.md": fact("ci", "The release test suite runs on every push") });
    commitAll(root, "ci fact");
    const revoked = await call(hub.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, {
      target: "evidence",
      value: "review:1",
      reason: "the review was not real",
    });
    expect(revoked.statusCode, revoked.body).toBe(201);
    hub.clock.set("2026-10-11T00:00:00Z");
    const later = await serve(key);
    expect(later.id).not.toBe(first.id);
    // The later packet withholds the revoked and the expired; the first packet had them.
    expect(JSON.parse(later.text).packet.unresolvedGaps).toEqual(
      expect.arrayContaining(["items_withheld:revoked:2", "items_withheld:expired:1"]),
    );

    // The revocation is lifted and another fact committed: each packet still replays as it was served.
    await call(
      hub.app,
      "POST",
      `/v1/projects/demo/revocations/${revoked.json().revocation.id}/lift`,
      ADMIN_TOKEN,
      {
        reason: "it was real after all",
      },
    );
    await writeFiles(root, { ".kxm/memory/docs.md": fact("docs", "Release notes live in docs/releases") });
    commitAll(root, "docs fact");
    await expectReplayed(first);
    await expectReplayed(filtered);
    await expectReplayed(later);
    // Replaying is not serving: the stored packet is unchanged.
    const stored = await call(hub.app, "GET", `/v1/projects/demo/packets/${first.id}`, ADMIN_TOKEN);
    expect(stored.json().packet.timesServed).toBe(1);
    expect(stored.json().packet.inputs.pool).toMatch(/^[0-9a-f]{64}$/);
    // And a restarted hub replays them from the file alone.
    await hub.close();
    await hub.reopen();
    await expectReplayed(first);
  });

  test("each input that cannot be had is named, with its own code", async () => {
    const { key, root } = await demo();
    const stateId = await promote(key, "release.branch", "Releases are cut from the main branch");
    const packet = await serve(key);

    expect(
      await expectProblem(await replay(packet.id, `${REQUEST.task}!`), 400, "replay_task_mismatch"),
    ).toBe(`the task given is not the one packet ${packet.id} was assembled for`);
    await expectProblem(await replay(packet.id, REQUEST.task.toUpperCase()), 400, "replay_task_mismatch");
    await expectProblem(await replay(`pkt_${"0".repeat(32)}`, REQUEST.task), 404, "not_found");
    // Agents read packets; they do not replay them.
    await expectProblem(await replay(packet.id, REQUEST.task, key), 401, "invalid_auth");
    // Bad input never reaches the store.
    const bad = await call(hub.app, "POST", `/v1/projects/demo/packets/${packet.id}/replay`, ADMIN_TOKEN, {});
    expect(bad.statusCode).toBe(400);

    // A record the packet did not read appears in the file's history: the pool does not come back.
    const bogus = `state_${"f".repeat(24)}`;
    sql(
      "insert into record_versions (project, seq, kind, record_id, body, forgotten) select project, seq, kind, ?, json_set(body, '$.id', ?), 0 from record_versions where record_id = ? order by seq desc limit 1",
      bogus,
      bogus,
      stateId,
    );
    expect(await expectProblem(await replay(packet.id, REQUEST.task), 409, "replay_mismatch")).toBe(
      `the pool's items of packet ${packet.id} did not come back from history`,
    );
    sql("delete from record_versions where record_id = ?", bogus);
    await expectReplayed(packet);

    // A packet from a database migrated before versions were kept: its history is before the floor.
    const second = await serve(key, { ...REQUEST, task: "What do we test before a release?" });
    sql("insert into history_floors (project, floor) values ('demo', 1000000)");
    await expectProblem(
      await replay(second.id, "What do we test before a release?"),
      410,
      "replay_history_purged",
    );
    sql("delete from history_floors");

    // A hub of another ranker version.
    sql("update packet_audits set ranker_version = 'kxm-rank-0' where packet_id = ?", second.id);
    await expectProblem(
      await replay(second.id, "What do we test before a release?"),
      409,
      "replay_ranker_changed",
    );
    // A packet stored before the hub kept a replay's inputs.
    sql("update packet_audits set inputs = null where packet_id = ?", packet.id);
    await expectProblem(await replay(packet.id, REQUEST.task), 410, "replay_history_purged");

    // The project now points at another repository, without the packet's memory commit.
    const third = await serve(key, { ...REQUEST, task: "Who cuts releases?" });
    const elsewhere = await gitCheckout(await mkdtemp(join(hub.dir, "other-")), "repo", {
      ".kxm/memory/other.md": fact("other", "Another repository"),
    });
    const moved = await call(hub.app, "PATCH", "/v1/projects/demo", ADMIN_TOKEN, { checkoutRoot: elsewhere });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(
      await expectProblem(await replay(third.id, "Who cuts releases?"), 409, "replay_memory_unavailable"),
    ).toMatch(/^memory commit [0-9a-f]{40} is not in the project's checkout$/);
    const back = await call(hub.app, "PATCH", "/v1/projects/demo", ADMIN_TOKEN, { checkoutRoot: root });
    expect(back.statusCode, back.body).toBe(200);

    // A state value the packet read is forgotten: its content is gone from history too.
    const forgotten = await call(hub.app, "POST", `/v1/projects/demo/items/${stateId}/forget`, ADMIN_TOKEN, {
      reason: "leaked",
    });
    expect(forgotten.statusCode, forgotten.body).toBe(201);
    expect(
      await expectProblem(await replay(third.id, "Who cuts releases?"), 410, "replay_history_forgotten"),
    ).toMatch(/^(a record|\d+ records) this packet read (was|were) forgotten since: /);
  });
});

describe("replay as a property", () => {
  const OPS = fc.array(
    fc.oneof(
      fc.record({ op: fc.constant("promote" as const), key: fc.constantFrom("a", "b"), n: fc.nat(3) }),
      fc.record({ op: fc.constant("journal" as const), n: fc.nat(3) }),
      fc.record({ op: fc.constant("revoke" as const) }),
      fc.record({ op: fc.constant("lift" as const) }),
      fc.record({ op: fc.constant("clock" as const), days: fc.integer({ min: 1, max: 6 }) }),
      fc.record({
        op: fc.constant("serve" as const),
        task: fc.constantFrom("release branch", "test suite", "ci"),
      }),
    ),
    { minLength: 4, maxLength: 14 },
  );

  test("every packet served along any history of writes replays byte for byte at the end", async () => {
    await fc.assert(
      fc.asyncProperty(OPS, async (ops) => {
        const { key } = await demo();
        const runId = await startRun(hub.app, "demo");
        const served: { text: string; id: string; task: string }[] = [];
        const active: string[] = [];
        for (const step of ops) {
          if (step.op === "promote")
            await promote(key, `release.${step.key}`, `Value ${step.n} of ${step.key}`);
          else if (step.op === "journal") {
            await call(hub.app, "POST", `/v1/projects/demo/runs/${runId}/journal`, key, {
              category: "decision",
              summary: `Decision ${step.n} about the release`,
            });
          } else if (step.op === "revoke") {
            const made = await call(hub.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, {
              target: "evidence",
              value: "review:1",
              reason: "doubt",
            });
            active.push(made.json().revocation.id);
          } else if (step.op === "lift") {
            const id = active.pop();
            if (id !== undefined) {
              await call(hub.app, "POST", `/v1/projects/demo/revocations/${id}/lift`, ADMIN_TOKEN, {
                reason: "ok",
              });
            }
          } else if (step.op === "clock") hub.clock.advance(step.days * 86_400_000);
          else {
            const task = `${step.task} of the release`;
            served.push({ ...(await serve(key, { role: "critic", task })), task });
          }
        }
        served.push({ ...(await serve(key)), task: REQUEST.task });
        for (const packet of served) await expectReplayed(packet, packet.task);
        await hub.dispose();
      }),
      { numRuns: 8, seed: 20_26 },
    );
  });
});

describe("the change seq a packet is stored with", () => {
  test("is the one its pool holds, when writes land while the pool loads", async () => {
    const { key } = await demo();
    // A revocation drops the pool; the next packet reloads it, reading git while these writes land.
    const served: { text: string; id: string }[] = [];
    for (let round = 0; round < 4; round += 1) {
      await call(hub.app, "POST", "/v1/projects/demo/revocations", ADMIN_TOKEN, {
        target: "evidence",
        value: `ref:${round}`,
        reason: "drop the pool",
      });
      const [packet] = await Promise.all([
        serve(key),
        ...Array.from({ length: 3 }, (_, i) =>
          promote(key, `race.${round}.${i}`, `Raced value ${round} ${i}`),
        ),
      ]);
      served.push(packet);
    }
    for (const packet of served) await expectReplayed(packet);
  });
});
