import crypto from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { rawQuery } from "./support/raw-sql.js";
import { guideProposal, proposeAndPromote } from "./support/state-fixtures.js";
import { at, ENGINE, T0, tempStore } from "./support/temp-store.js";

// Named operator credentials, agent key listing and rotation, and project update and removal (issue 15, part C),
// on a real SQLite file or PostgreSQL database.

describe("operator credentials", () => {
  test("a token is kxo_ + 43 base64url characters, authenticates its operator, and is listed by name only", async () => {
    const { store, file } = await tempStore();
    const bob = await store.createOperator("bob", at(T0));
    const alice = await store.createOperator("alice", at(T0, 1));
    expect(bob.token).toMatch(/^kxo_[A-Za-z0-9_-]{43}$/);
    expect(await store.authenticateOperator(alice.token)).toEqual({ name: "alice" });
    expect(await store.authenticateOperator(bob.token)).toEqual({ name: "bob" });
    expect(await store.listOperators()).toEqual([
      { name: "alice", createdAt: "2026-09-01T00:00:00.001Z" },
      { name: "bob", createdAt: T0 },
    ]);
    // Only the SHA-256 is stored.
    expect(await rawQuery(file, "select key_hash from operator_credentials order by name")).toEqual(
      [alice.token, bob.token].map((token) => ({
        key_hash: crypto.createHash("sha256").update(token).digest("hex"),
      })),
    );
  });

  // The database's own files: SQLite's file and its WAL (PostgreSQL's files are the server's).
  test.skipIf(ENGINE === "postgres")("a token's bytes appear in no database file", async () => {
    const { store, file } = await tempStore();
    const bob = await store.createOperator("bob", at(T0));
    const alice = await store.createOperator("alice", at(T0, 1));
    await store.close();
    for (const path of [file, `${file}-wal`].filter((p) => existsSync(p))) {
      const bytes = readFileSync(path);
      expect(bytes.includes(Buffer.from(alice.token))).toBe(false);
      expect(bytes.includes(Buffer.from(bob.token))).toBe(false);
    }
  });

  test("a revoked token never authenticates; the name may then get a new token", async () => {
    const { store } = await tempStore();
    const first = await store.createOperator("alice", at(T0));
    await expect(store.createOperator("alice", at(T0))).rejects.toMatchObject({
      code: "invalid_request",
      message: "operator alice already has an active token; revoke it before creating another",
    });
    expect(await store.revokeOperator("alice", at(T0, 1))).toBe(true);
    expect(await store.revokeOperator("alice", at(T0, 2))).toBe(false);
    expect(await store.authenticateOperator(first.token)).toBeUndefined();
    expect(await store.listOperators()).toEqual([]);
    const second = await store.createOperator("alice", at(T0, 3));
    expect(await store.authenticateOperator(second.token)).toEqual({ name: "alice" });
    expect(await store.authenticateOperator(first.token)).toBeUndefined();
  });

  test("malformed names, and the admin's own name, are refused", async () => {
    const { store } = await tempStore();
    for (const name of ["", "Alice", "has space", "-lead", "operator:bob"]) {
      await expect(store.createOperator(name, at(T0)), name).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
    await expect(store.createOperator("x".repeat(65), at(T0))).rejects.toMatchObject({
      code: "context_limits_exceeded",
    });
    await expect(store.createOperator("kxm-admin", at(T0))).rejects.toMatchObject({
      code: "invalid_request",
      message: "name: kxm-admin is the admin token's name, not an operator's",
    });
  });

  test("agent keys, near misses and garbage never authenticate as an operator", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const { key } = await store.createAgentKey("demo", "agent-1", at(T0));
    const { token } = await store.createOperator("alice", at(T0));
    const flipped = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const candidate of [key, flipped, `kxm_${token.slice(4)}`, "", "kxo_", `${token} `]) {
      expect(await store.authenticateOperator(candidate)).toBeUndefined();
    }
    // And an operator token is not an agent key.
    expect(await store.authenticateAgent(token)).toBeUndefined();
  });
});

describe("agent keys: list and rotate", () => {
  test("list names the agents with an active key, never a key; an unknown project is not_found", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const created = await store.createAgentKey("demo", "planner", at(T0, 2));
    await store.createAgentKey("demo", "critic", at(T0, 1));
    await store.createAgentKey("demo", "gone", at(T0));
    await store.revokeAgentKey("demo", "gone", at(T0, 3));
    const agents = await store.listAgentKeys("demo");
    expect(agents).toEqual([
      { agentId: "critic", createdAt: "2026-09-01T00:00:00.001Z" },
      { agentId: "planner", createdAt: "2026-09-01T00:00:00.002Z" },
    ]);
    expect(JSON.stringify(agents)).not.toContain(created.key);
    await expect(store.listAgentKeys("missing")).rejects.toMatchObject({ code: "not_found" });
  });

  test("rotate returns a new key; the old one stops working; no active key is not_found", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const old = await store.createAgentKey("demo", "planner", at(T0));
    const rotated = await store.rotateAgentKey("demo", "planner", at(T0, 5));
    expect(rotated.agentId).toBe("planner");
    expect(rotated.key).toMatch(/^kxm_[A-Za-z0-9_-]{43}$/);
    expect(rotated.key).not.toBe(old.key);
    expect(await store.authenticateAgent(old.key)).toBeUndefined();
    expect(await store.authenticateAgent(rotated.key)).toEqual({ project: "demo", agentId: "planner" });
    expect(await store.listAgentKeys("demo")).toEqual([
      { agentId: "planner", createdAt: "2026-09-01T00:00:00.005Z" },
    ]);
    await expect(store.rotateAgentKey("demo", "nobody", at(T0, 6))).rejects.toMatchObject({
      code: "not_found",
      message: "agent nobody has no active key in project demo to rotate",
    });
    await expect(store.rotateAgentKey("missing", "planner", at(T0, 6))).rejects.toMatchObject({
      code: "not_found",
    });
    // A refused rotation changed nothing.
    expect(await store.authenticateAgent(rotated.key)).toEqual({ project: "demo", agentId: "planner" });
  });
});

describe("projects: update and remove", () => {
  test("update sets the checkout root; relative roots and unknown projects are refused", async () => {
    const { store } = await tempStore();
    const created = await store.createProject({ id: "demo", checkoutRoot: "/srv/old" }, at(T0));
    const updated = await store.updateProject("demo", { checkoutRoot: "/srv/new" });
    expect(updated).toEqual({ ...created, checkoutRoot: "/srv/new" });
    expect(await store.getProject("demo")).toEqual(updated);
    await expect(store.updateProject("demo", { checkoutRoot: "rel" })).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(store.updateProject("missing", { checkoutRoot: "/srv/x" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  test("an empty project is removed; one with records or active keys is project_not_empty unless forced", async () => {
    const { store, file } = await tempStore();
    await store.createProject({ id: "empty" }, at(T0));
    await store.createProject({ id: "demo" }, at(T0));
    await store.createProject({ id: "keep" }, at(T0));
    // A revoked key alone does not keep a project.
    await store.createAgentKey("empty", "old", at(T0));
    await store.revokeAgentKey("empty", "old", at(T0, 1));
    expect(await store.removeProject("empty", { force: false })).toEqual({
      project: "empty",
      items: 0,
      runs: 0,
      journalEntries: 0,
      agentKeys: 1,
    });
    expect(await store.getProject("empty")).toBeUndefined();
    // An active key alone does.
    await store.createProject({ id: "keyed" }, at(T0));
    await store.createAgentKey("keyed", "live", at(T0));
    await expect(store.removeProject("keyed", { force: false })).rejects.toMatchObject({
      code: "project_not_empty",
    });

    const { key } = await store.createAgentKey("demo", "agent-1", at(T0));
    await proposeAndPromote(store, "release.branch", "From main", at(T0, 1000));
    await store.proposeState(guideProposal({ summary: "From trunk" }), at(T0, 2000));
    await store.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0, 3000));
    const entry = await store.appendJournal(
      { project: "demo", runId: "r1", category: "lesson", summary: "Pin the DB", evidenceRefs: ["ci:1"] },
      at(T0, 3001),
    );
    await store.finishRun({ project: "demo", runId: "r1", outcome: "failed" }, at(T0, 4000));
    await store.reviewJournalEntry(
      { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin" },
      at(T0, 5000),
    );
    await proposeAndPromote(store, "release.branch", "Kept", at(T0, 1000), "keep");

    await expect(store.removeProject("demo", { force: false })).rejects.toMatchObject({
      code: "project_not_empty",
      status: 409,
      message:
        "project demo holds 4 item(s), 1 run(s) and 1 active agent key(s); remove them first, or remove the " +
        "project with force to delete them too",
    });
    // Refused: nothing changed.
    expect(await store.getProject("demo")).toBeDefined();
    expect(await store.authenticateAgent(key)).toEqual({ project: "demo", agentId: "agent-1" });

    // Items: the superseded-free history of one promotion (consumed proposal, current value), a pending proposal,
    // and the run's episode.
    expect(await store.removeProject("demo", { force: true })).toEqual({
      project: "demo",
      items: 4,
      runs: 1,
      journalEntries: 1,
      agentKeys: 1,
    });
    expect(await store.getProject("demo")).toBeUndefined();
    expect(await store.authenticateAgent(key)).toBeUndefined();
    expect(await store.liveItems("demo")).toEqual([]);
    expect(await store.listJournal("demo")).toEqual([]);
    // Every table is free of the project's rows, the review and proposal records included.
    for (const [table, column] of [
      ["items", "project"],
      ["state_proposals", "project"],
      ["runs", "project"],
      ["journal_entries", "project"],
      ["journal_reviews", "project"],
      ["agent_credentials", "project"],
    ] as const) {
      expect(
        await rawQuery(file, `select cast(count(*) as integer) as n from ${table} where ${column} = 'demo'`),
        table,
      ).toEqual([{ n: 0 }]);
    }
    // The other project is untouched; the id may be registered again, empty.
    expect((await store.liveItems("keep")).length).toBe(2);
    await store.createProject({ id: "demo" }, at(T0, 9000));
    expect(await store.liveItems("demo")).toEqual([]);
    await expect(store.removeProject("missing", { force: true })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
