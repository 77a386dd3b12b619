import { type ContextItem, isKxmError } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { rawQuery } from "./support/raw-sql.js";
import { guideProposal, packetRecord, proposeAndPromote } from "./support/state-fixtures.js";
import { at, T0, tempStore } from "./support/temp-store.js";

/**
 * The versions as stored in the database: seq, kind, id and the status in the body (null for a deletion marker).
 * PostgreSQL hands the bigint seq back as a string and `forgotten` as a boolean, SQLite both as numbers.
 */
async function versions(file: string) {
  const rows = await rawQuery(
    file,
    "select seq, kind, record_id as id, body, forgotten from record_versions order by seq, kind, record_id",
  );
  return rows.map((row) => {
    const { kind, id, body, forgotten } = row as {
      kind: string;
      id: string;
      body: string | null;
      forgotten: unknown;
    };
    const seq = Number(row.seq);
    const status = body === null ? null : (JSON.parse(body) as { status?: string }).status;
    return forgotten === 1 || forgotten === true
      ? { seq, kind, id, status, forgotten: true }
      : { seq, kind, id, status };
  });
}

test("proposals, promotions and journal writes each snapshot the rows they name, with their change seq", async () => {
  const { store, file } = await tempStore();
  await store.createProject({ id: "demo" }, at(T0));
  const proposal = await store.proposeState(guideProposal(), at(T0, 1));
  const promotion = await store.promoteState(
    { project: "demo", proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
    at(T0, 2),
  );
  const run = await store.startRun({ project: "demo", workflow: "build", runId: "r1" }, at(T0, 3));
  const entry = await store.appendJournal(
    { project: "demo", runId: run.id, category: "decision", summary: "Use WAL" },
    at(T0, 4),
  );
  expect(await versions(file)).toEqual([
    { seq: 2, kind: "item", id: proposal.id, status: "proposed" },
    ...[
      { seq: 3, kind: "item", id: promotion.consumed.id, status: promotion.consumed.status },
      { seq: 3, kind: "item", id: promotion.state.id, status: promotion.state.status },
    ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    { seq: 5, kind: "entry", id: entry.id, status: undefined },
  ]);
});

test("forgetting clears the body of every version holding the content; the deletion marker stays", async () => {
  const { store, file } = await tempStore();
  await store.createProject({ id: "demo" }, at(T0));
  const proposal = await store.proposeState(guideProposal(), at(T0, 1));
  await store.forget(
    { project: "demo", itemId: proposal.id, reason: "leaked", forgottenBy: "kxm-admin" },
    at(T0, 2),
  );
  expect(await versions(file)).toEqual([
    { seq: 2, kind: "item", id: proposal.id, status: null, forgotten: true },
    { seq: 3, kind: "item", id: proposal.id, status: null },
  ]);
});

const DAY = 86_400_000;

/** What `code` the promise rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isKxmError(error) ? error.code : String(error);
  }
}

/** A stored packet that read change `changeSeq`, last served at `servedAt`: what retention keeps history for. */
const packetAt = (changeSeq: number, servedAt: Date) =>
  packetRecord("demo", `pkt_${"1".padStart(32, "0")}`, servedAt, { changeSeq });

const statuses = (items: readonly ContextItem[]) => items.map((item) => `${item.summary}:${item.status}`);

describe("records as of a change seq", () => {
  test("each seq reads the items and journal as they stood then, later promotions and writes unseen", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await proposeAndPromote(store, "k", "A", at(T0, 1_000));
    const afterA = await store.changeHead();
    const run = await store.startRun({ project: "demo", workflow: "build", runId: "r1" }, at(T0, 1_500));
    await store.appendJournal(
      { project: "demo", runId: run.id, category: "decision", summary: "Use WAL" },
      at(T0, 1_600),
    );
    const afterEntry = await store.changeHead();
    await proposeAndPromote(store, "k", "B", at(T0, 2_000));

    const thenA = await store.recordsAsOf("demo", afterA);
    expect(statuses(thenA.items).sort()).toEqual(["A:current", "A:rejected"]);
    expect(thenA.journal).toEqual([]);
    const thenEntry = await store.recordsAsOf("demo", afterEntry);
    expect(thenEntry.journal.map((entry) => entry.summary)).toEqual(["Use WAL"]);
    const now = await store.recordsAsOf("demo", await store.changeHead());
    // The head reads exactly what the store holds.
    expect(now.items).toEqual(await store.liveItems("demo"));
    expect(now.journal).toEqual(await store.listJournal("demo"));
    expect(await store.recordsAsOf("demo", 0)).toEqual({ items: [], journal: [] });
  });

  test("a seq past the head, or not a whole number, is refused", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    expect(await codeOf(store.recordsAsOf("demo", (await store.changeHead()) + 1))).toBe(
      "replay_history_purged",
    );
    expect(await codeOf(store.recordsAsOf("demo", -1))).toBe("invalid_request");
    expect(await codeOf(store.recordsAsOf("demo", 1.5))).toBe("invalid_request");
  });

  test("a record forgotten since is named; after the forgetting it is simply absent", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const proposal = await store.proposeState(guideProposal(), at(T0, 1));
    const before = await store.changeHead();
    await store.forget(
      { project: "demo", itemId: proposal.id, reason: "leaked", forgottenBy: "kxm-admin" },
      at(T0, 2),
    );
    await expect(store.recordsAsOf("demo", before)).rejects.toThrow(
      `a record this packet read was forgotten since: ${proposal.id}`,
    );
    expect(await codeOf(store.recordsAsOf("demo", before))).toBe("replay_history_forgotten");
    expect(await store.recordsAsOf("demo", await store.changeHead())).toEqual({ items: [], journal: [] });
  });

  test("rules as of a seq: created at or before it, lifted after it, reported unlifted", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const before = await store.changeHead();
    const revocation = await store.revoke(
      { project: "demo", target: "evidence", value: "pr:12", reason: "bad", revokedBy: "kxm-admin" },
      at(T0, 1),
    );
    const during = await store.changeHead();
    await store.liftRevocation(
      { project: "demo", id: revocation.id, reason: "fine", liftedBy: "kxm-admin" },
      at(T0, 2),
    );
    expect((await store.withholdRules("demo", before)).revocations).toEqual([]);
    expect((await store.withholdRules("demo", during)).revocations).toEqual([revocation]);
    expect((await store.withholdRules("demo", await store.changeHead())).revocations).toEqual([]);
    expect((await store.withholdRules("demo")).revocations).toEqual([]);
  });
});

describe("retention of record versions", () => {
  test("forgetting content clears it from the versions of records retention purged long ago", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const a = await proposeAndPromote(store, "k", "A", at(T0, 1_000));
    const afterA = await store.changeHead();
    await proposeAndPromote(store, "k", "B", at(T0, 2_000));
    await store.recordPackets([packetAt(afterA, at(T0, 30 * DAY))]);
    await store.purge(at(T0, 2_001 + 7 * DAY), 7);
    expect(await store.getItem("demo", a.state.id)).toBeUndefined();
    // The same content written again under another key, then forgotten: the purged A's versions lose it too.
    const again = await store.proposeState(guideProposal({ key: "j", summary: "A" }), at(T0, 9 * DAY));
    await store.forget(
      { project: "demo", itemId: again.id, reason: "leaked", forgottenBy: "kxm-admin" },
      at(T0, 10 * DAY),
    );
    await expect(store.recordsAsOf("demo", afterA)).rejects.toThrow(
      /2 records this packet read were forgotten since: /,
    );
  });

  test("purged records get deletion markers; versions no stored packet reads go, and the floor rises", async () => {
    const { store, file } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await proposeAndPromote(store, "k", "A", at(T0, 1_000));
    const afterA = await store.changeHead();
    await proposeAndPromote(store, "k", "B", at(T0, 2_000));
    const afterB = await store.changeHead();
    // A packet that read the pool after A: its history must survive a purge of A.
    await store.recordPackets([packetAt(afterA, at(T0, 30 * DAY))]);
    expect(await store.purge(at(T0, 2_001 + 7 * DAY), 7)).toMatchObject({ items: 3 });
    expect(statuses(await store.liveItems("demo"))).toEqual(["B:current"]);
    // The packet's records read back as they were, A included; after the purge A is gone.
    expect(statuses((await store.recordsAsOf("demo", afterA)).items).sort()).toEqual([
      "A:current",
      "A:rejected",
    ]);
    expect(statuses((await store.recordsAsOf("demo", afterB)).items).sort()).toEqual([
      "A:rejected",
      "A:superseded",
      "B:current",
      "B:rejected",
    ]);
    expect(statuses((await store.recordsAsOf("demo", await store.changeHead())).items)).toEqual([
      "B:current",
    ]);
    expect(await codeOf(store.recordsAsOf("demo", afterA - 1))).toBe("replay_history_purged");

    // Once the packet is purged too, only B's current version is left, and older reads are refused.
    const rows = (await versions(file)).length;
    expect(await store.purge(at(T0, 40 * DAY), 7)).toMatchObject({ packets: 1 });
    expect((await versions(file)).length).toBeLessThan(rows);
    expect((await versions(file)).map((row) => row.status)).toEqual(["current"]);
    expect(await codeOf(store.recordsAsOf("demo", afterB))).toBe("replay_history_purged");
    expect(statuses((await store.recordsAsOf("demo", await store.changeHead())).items)).toEqual([
      "B:current",
    ]);
  });
});
