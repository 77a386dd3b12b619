import { join } from "node:path";
import { expectKxmRejection, freePort, tempPostgresDatabase } from "@kxm/test-support";
import postgres from "postgres";
import { describe, expect, test } from "vitest";
import { copySqliteToPostgres, type KxmStore, openPostgresStore, openStore } from "../src/index.js";
import { guideProposal, packetRecord, proposeAndPromote } from "./support/state-fixtures.js";
import { at, open, T0, tempDir } from "./support/temp-store.js";

// Moving a SQLite hub to PostgreSQL: every row lands, and every read answers what the SQLite store answered.
// Runs in the "postgres" project (a throwaway cluster); the SQLite side is a real file.

/** A SQLite store with a little of everything: state, runs, journal and review, credentials, withholding, packets. */
async function filledSqlite(file: string): Promise<{ agentKey: string; operatorToken: string }> {
  const store = openStore({ path: file });
  try {
    await store.createProject({ id: "demo", checkoutRoot: "/srv/demo" }, at(T0));
    await store.createProject({ id: "other" }, at(T0));
    await proposeAndPromote(store, "release.branch", "Releases are cut from main", at(T0, 1_000));
    await proposeAndPromote(store, "release.branch", "Releases are cut from release/*", at(T0, 2_000));
    await store.proposeState(
      guideProposal({ key: "deploy.day", summary: "Deploys on Tuesdays" }),
      at(T0, 3_000),
    );
    const run = await store.startRun({ project: "demo", workflow: "fix-bug", runId: "run-1" }, at(T0, 4_000));
    const entry = await store.appendJournal(
      {
        project: "demo",
        runId: run.id,
        category: "lesson",
        summary: "Run the linter first",
        evidenceRefs: ["ci:7"],
      },
      at(T0, 5_000),
    );
    await store.finishRun(
      { project: "demo", runId: run.id, outcome: "succeeded", lessons: ["lint"] },
      at(T0, 6_000),
    );
    await store.reviewJournalEntry(
      { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin", evidenceRefs: ["review:2"] },
      at(T0, 7_000),
    );
    const { key } = await store.createAgentKey("demo", "agent-1", at(T0, 8_000));
    const { token } = await store.createOperator("alice", at(T0, 8_000));
    await store.revoke(
      { project: "demo", target: "evidence", value: "pr:99", reason: "bad PR", revokedBy: "alice" },
      at(T0, 9_000),
    );
    const doomed = await store.proposeState(
      guideProposal({ key: "secret.thing", summary: "Something to forget" }),
      at(T0, 9_500),
    );
    await store.forget(
      { project: "demo", itemId: doomed.id, reason: "pasted by mistake", forgottenBy: "alice" },
      at(T0, 10_000),
    );
    await store.recordPackets([
      packetRecord("demo", "pkt_1", at(T0, 11_000), { changeSeq: await store.changeHead() }),
    ]);
    return { agentKey: key, operatorToken: token };
  } finally {
    await store.close();
  }
}

/** Everything a hub reads, in one comparable value. */
async function everything(store: KxmStore) {
  const projects = await store.listProjects();
  const perProject = [];
  for (const { id } of projects) {
    const head = await store.changeHead();
    perProject.push({
      id,
      items: await store.liveItems(id),
      history: await store.stateHistory(id, "release.branch"),
      contradictions: await store.openContradictions(id),
      journal: await store.listJournal(id),
      reviewed: await store.listReviewedJournal(id),
      episodes: await store.listEpisodes(id, { limit: 50 }),
      revocations: await store.listRevocations(id),
      tombstones: await store.listTombstones(id),
      rules: await store.withholdRules(id),
      packets: await store.listPackets(id, { limit: 50 }),
      packet: await store.getPacket(id, "pkt_1"),
      run: await store.getRun(id, "run-1"),
      agents: await store.listAgentKeys(id),
      asOfHead: await store.recordsAsOf(id, head),
    });
  }
  return {
    projects,
    perProject,
    operators: await store.listOperators(),
    head: await store.changeHead(),
    feed: await store.changesSince(0),
  };
}

describe("copySqliteToPostgres", () => {
  test("copies every row: the PostgreSQL store answers every read as the SQLite one did", async () => {
    const file = join(tempDir(), "kxm.db");
    const { agentKey, operatorToken } = await filledSqlite(file);
    const sqlite = openStore({ path: file });
    const before = await everything(sqlite);
    await sqlite.close();
    const url = await tempPostgresDatabase();
    const result = await copySqliteToPostgres({ from: file, to: url });
    expect(result.to).toBe(url);
    expect(result.changeHead).toBe(before.head);
    expect(result.rows.projects).toBe(2);
    expect(result.rows.tombstones).toBe(1);
    const copied = await open(url);
    expect(await everything(copied)).toEqual(before);
    expect(await copied.authenticateAgent(agentKey)).toEqual({ project: "demo", agentId: "agent-1" });
    expect(await copied.authenticateOperator(operatorToken)).toEqual({ name: "alice" });
    // The feed goes on from the copied head: the next write takes the next seq.
    await copied.createProject({ id: "third" }, at(T0, 20_000));
    expect(await copied.changeHead()).toBe(before.head + 1);
  });

  test("refuses a target that already holds KXM data, and leaves it as it was", async () => {
    const file = join(tempDir(), "kxm.db");
    await filledSqlite(file);
    const url = await tempPostgresDatabase();
    const target = await open(url);
    await target.createProject({ id: "existing" }, at(T0));
    await expectKxmRejection(copySqliteToPostgres({ from: file, to: url }), "database_not_empty");
    expect((await target.listProjects()).map((project) => project.id)).toEqual(["existing"]);
  });

  test("refuses a file a hub still has open, and a file that is not there", async () => {
    const file = join(tempDir(), "kxm.db");
    await filledSqlite(file);
    const url = await tempPostgresDatabase();
    const serving = await open(file);
    await serving.listProjects();
    await expectKxmRejection(copySqliteToPostgres({ from: file, to: url }), "database_in_use");
    await serving.close();
    await expectKxmRejection(
      copySqliteToPostgres({ from: join(tempDir(), "missing.db"), to: url }),
      "not_found",
    );
    await expectKxmRejection(
      copySqliteToPostgres({ from: file, to: "mysql://db/kxm" }),
      "database_url_invalid",
    );
    expect((await (await open(url)).listProjects()).length).toBe(0);
  });
});

describe("openPostgresStore", () => {
  test("no server on the port, or no such database, is database_unreachable, naming no password", async () => {
    const missing = (await tempPostgresDatabase()).replace(/\/[^/]+$/, "/kxm_no_such_database");
    const closed = `postgres://kxm:hunter2-secret@127.0.0.1:${await freePort()}/kxm`;
    for (const url of [missing, closed]) {
      const error = await expectKxmRejection(openPostgresStore({ url }), "database_unreachable", 503);
      expect(error.message).not.toContain("hunter2");
    }
  });

  test("writes run READ COMMITTED even where the database defaults to SERIALIZABLE", async () => {
    // Two processes writing at once queue on the change feed's row lock; under SERIALIZABLE the one that waited
    // would fail with a serialization error instead of writing after the other.
    const url = await tempPostgresDatabase();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const name = url.slice(url.lastIndexOf("/") + 1);
      await admin.unsafe(`alter database ${name} set default_transaction_isolation = 'serializable'`);
    } finally {
      await admin.end();
    }
    const first = await openPostgresStore({ url });
    const second = await openPostgresStore({ url });
    try {
      await first.createProject({ id: "demo" }, at(T0));
      const writes = Array.from({ length: 20 }, (_, n) =>
        (n % 2 === 0 ? first : second).proposeState(
          guideProposal({ key: `deploy.window.${n}`, summary: `Deploys in window ${n}` }),
          at(T0, n),
        ),
      );
      expect(await Promise.all(writes)).toHaveLength(20);
      expect(await second.changeHead()).toBe(21);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
