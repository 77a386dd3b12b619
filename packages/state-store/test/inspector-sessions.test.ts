import crypto from "node:crypto";
import { describe, expect, test } from "vitest";
import type { InspectorSessionRecord } from "../src/index.js";
import { rawQuery } from "./support/raw-sql.js";
import { at, open, T0, tempStore } from "./support/temp-store.js";

// The inspector's sign-in sessions, stored so that every hub process on one database knows them (issue 23, hub
// workers), on a real SQLite file or PostgreSQL database.

const HOUR = 3_600_000;

function hashOf(id: string): string {
  return crypto.createHash("sha256").update(id).digest("hex");
}

function admin(id: string, expiresAt: Date): InspectorSessionRecord {
  return {
    idHash: hashOf(id),
    user: { kind: "admin", fingerprint: "f".repeat(64) },
    expiresAt: expiresAt.toISOString(),
  };
}

describe("inspector sessions", () => {
  test("a stored session is found by its id hash from another connection until it expires or is closed", async () => {
    const { store, file } = await tempStore();
    const operator: InspectorSessionRecord = {
      idHash: hashOf("op"),
      user: { kind: "operator", name: "alice", createdAt: T0 },
      expiresAt: at(T0, 12 * HOUR).toISOString(),
    };
    await store.openInspectorSession(admin("a", at(T0, HOUR)), at(T0));
    await store.openInspectorSession(operator, at(T0));
    const other = await open(file);
    expect(await other.findInspectorSession(hashOf("a"), at(T0, 1))).toEqual(admin("a", at(T0, HOUR)));
    expect(await other.findInspectorSession(hashOf("op"), at(T0, 1))).toEqual(operator);
    // Expiry is exclusive: at its instant the session is over.
    expect(await other.findInspectorSession(hashOf("a"), at(T0, HOUR))).toBeUndefined();
    await other.closeInspectorSession(hashOf("op"));
    expect(await store.findInspectorSession(hashOf("op"), at(T0, 1))).toBeUndefined();
    // Closing twice, or an unknown or malformed hash, is nothing.
    await store.closeInspectorSession(hashOf("op"));
    await store.closeInspectorSession("not a hash");
    expect(await store.findInspectorSession("not a hash", at(T0))).toBeUndefined();
    expect(await store.findInspectorSession(hashOf("unknown"), at(T0))).toBeUndefined();
  });

  test("only the id's hash is stored, and a malformed hash is refused", async () => {
    const { store, file } = await tempStore();
    await store.openInspectorSession(admin("secret-session-id", at(T0, HOUR)), at(T0));
    expect(
      await rawQuery(file, "select id_hash, user_kind, operator, expires_at from inspector_sessions"),
    ).toEqual([
      {
        id_hash: hashOf("secret-session-id"),
        user_kind: "admin",
        operator: null,
        expires_at: at(T0, HOUR).toISOString(),
      },
    ]);
    await expect(
      store.openInspectorSession({ ...admin("x", at(T0, HOUR)), idHash: "secret-session-id" }, at(T0)),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  test("opening drops expired sessions, and past 1,000 the one that expires first", async () => {
    const { store, file } = await tempStore();
    await store.openInspectorSession(admin("old", at(T0, 10)), at(T0));
    for (let i = 0; i < 1_000; i++)
      await store.openInspectorSession(admin(`s${i}`, at(T0, HOUR + i)), at(T0, 20));
    const count = async () =>
      Number(
        ((await rawQuery(file, "select count(*) as n from inspector_sessions")) as Array<{ n: unknown }>)[0]
          ?.n,
      );
    // The expired one went at the first open after its expiry; the cap is reached, not passed.
    expect(await count()).toBe(1_000);
    await store.openInspectorSession(admin("new", at(T0, 2 * HOUR)), at(T0, 30));
    expect(await count()).toBe(1_000);
    expect(await store.findInspectorSession(hashOf("s0"), at(T0, 30))).toBeUndefined();
    expect(await store.findInspectorSession(hashOf("s1"), at(T0, 30))).toBeDefined();
    expect(await store.findInspectorSession(hashOf("new"), at(T0, 30))).toBeDefined();
  });
});
