import crypto from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { rawQuery } from "./support/raw-sql.js";
import { at, ENGINE, T0, tempStore } from "./support/temp-store.js";

describe("projects", () => {
  test("a project keeps its checkout root; list is in id order; unknown ids are undefined", async () => {
    const { store } = await tempStore();
    const beta = await store.createProject({ id: "beta", checkoutRoot: "/srv/beta" }, at(T0));
    const alpha = await store.createProject({ id: "alpha" }, at(T0, 5));
    expect(beta).toEqual({ id: "beta", checkoutRoot: "/srv/beta", createdAt: "2026-09-01T00:00:00.000Z" });
    expect(alpha).toEqual({ id: "alpha", checkoutRoot: null, createdAt: "2026-09-01T00:00:00.005Z" });
    expect(await store.getProject("beta")).toEqual(beta);
    expect(await store.getProject("gamma")).toBeUndefined();
    expect(await store.listProjects()).toEqual([alpha, beta]);
  });

  test("creating an existing project is invalid_request, with a clear message", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await expect(store.createProject({ id: "demo" }, at(T0))).rejects.toMatchObject({
      code: "invalid_request",
      status: 400,
      message: "project demo already exists",
    });
  });

  test("malformed project ids and relative checkout roots are refused", async () => {
    const { store } = await tempStore();
    await expect(store.createProject({ id: "has space" }, at(T0))).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(store.createProject({ id: "demo", checkoutRoot: "rel/path" }, at(T0))).rejects.toMatchObject(
      {
        code: "invalid_request",
      },
    );
    await expect(store.createProject({ id: "demo" }, new Date(Number.NaN))).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});

describe("agent credentials", () => {
  test("a key is kxm_ + 43 base64url characters and authenticates its agent", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const created = await store.createAgentKey("demo", "implementer-1", at(T0));
    expect(created.agentId).toBe("implementer-1");
    expect(created.key).toMatch(/^kxm_[A-Za-z0-9_-]{43}$/);
    expect(await store.authenticateAgent(created.key)).toEqual({ project: "demo", agentId: "implementer-1" });
  });

  test("only the SHA-256 is stored: the credential row holds the key's hash, never the key", async () => {
    const { store, file } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const { key } = await store.createAgentKey("demo", "agent-1", at(T0));
    const hash = crypto.createHash("sha256").update(key).digest("hex");
    expect(await rawQuery(file, "select * from agent_credentials")).toEqual([
      { key_hash: hash, project: "demo", agent_id: "agent-1", created_at: T0, revoked_at: null },
    ]);
  });

  // The database's own files: SQLite's file and its WAL (PostgreSQL's files are the server's).
  test.skipIf(ENGINE === "postgres")("the key's bytes appear nowhere in the database files", async () => {
    const { store, file } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const { key } = await store.createAgentKey("demo", "agent-1", at(T0));
    // Before closing (the row may still sit in the WAL) and after (checkpointed into the main file).
    const bytes = () =>
      [file, `${file}-wal`, `${file}-shm`]
        .filter((path) => existsSync(path))
        .map((path) => readFileSync(path));
    for (const content of bytes()) expect(content.includes(Buffer.from(key))).toBe(false);
    await store.close();
    for (const content of bytes()) expect(content.includes(Buffer.from(key))).toBe(false);
  });

  test("a revoked key never authenticates, and the agent may then get a new key", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const first = await store.createAgentKey("demo", "agent-1", at(T0));
    expect(await store.revokeAgentKey("demo", "agent-1", at(T0, 1))).toBe(true);
    expect(await store.revokeAgentKey("demo", "agent-1", at(T0, 2))).toBe(false);
    expect(await store.authenticateAgent(first.key)).toBeUndefined();
    const second = await store.createAgentKey("demo", "agent-1", at(T0, 3));
    expect(second.key).not.toBe(first.key);
    expect(await store.authenticateAgent(second.key)).toEqual({ project: "demo", agentId: "agent-1" });
    expect(await store.authenticateAgent(first.key)).toBeUndefined();
  });

  test("a second active key for one agent is invalid_request; an unknown project is not_found", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await store.createProject({ id: "other" }, at(T0));
    await store.createAgentKey("demo", "agent-1", at(T0));
    await expect(store.createAgentKey("demo", "agent-1", at(T0))).rejects.toMatchObject({
      code: "invalid_request",
    });
    // The same agent id in another project is another identity.
    const other = await store.createAgentKey("other", "agent-1", at(T0));
    expect(await store.authenticateAgent(other.key)).toEqual({ project: "other", agentId: "agent-1" });
    await expect(store.createAgentKey("missing", "agent-1", at(T0))).rejects.toMatchObject({
      code: "not_found",
      status: 404,
    });
  });

  test("unknown, malformed and near-miss keys do not authenticate", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const { key } = await store.createAgentKey("demo", "agent-1", at(T0));
    const flipped = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    for (const candidate of [flipped, "", "kxm_", key.toUpperCase(), `${key} `, "Bearer x"]) {
      expect(await store.authenticateAgent(candidate)).toBeUndefined();
    }
  });
});
