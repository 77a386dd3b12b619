import { describe, expect, test, vi } from "vitest";
import type { KxmStore, StoreChange } from "../src/index.js";
import { FeedReader } from "../src/sqlite/changes.js";
import { guideProposal, packetRecord, proposeAndPromote } from "./support/state-fixtures.js";
import { at, ENGINE, open, T0, tempStore } from "./support/temp-store.js";

const DAY = 86_400_000;

/** The changes after `cursor`, without their sequence numbers, and the new head. */
async function after(store: KxmStore, cursor: number) {
  const batch = await store.changesSince(cursor);
  expect(batch.reset).toBe(false);
  return { head: batch.head, changes: batch.changes.map(({ seq: _, ...rest }) => rest) };
}

describe("the change feed", () => {
  test("every write that a pool, packet, recall or the wiki can show appends one change in order", async () => {
    const { store } = await tempStore();
    expect(await store.changeHead()).toBe(0);
    expect(await store.changesSince(0)).toEqual({ head: 0, reset: false, changes: [] });

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
    const finished = await store.finishRun(
      { project: "demo", runId: run.id, outcome: "succeeded" },
      at(T0, 5),
    );
    await store.reviewJournalEntry(
      { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin" },
      at(T0, 6),
    );
    // A second review changes nothing, so it appends nothing.
    await store.reviewJournalEntry(
      { project: "demo", entryId: entry.id, reviewedBy: "kxm-admin" },
      at(T0, 7),
    );
    await store.updateProject("demo", { checkoutRoot: "/srv/demo" }, at(T0, 8));

    const { head, changes } = await after(store, 0);
    expect(head).toBe(9);
    expect(changes).toEqual<Omit<StoreChange, "seq">[]>([
      { project: "demo", kind: "project", ids: [] },
      { project: "demo", kind: "items", ids: [proposal.id] },
      {
        project: "demo",
        kind: "items",
        ids: [promotion.consumed.id, promotion.state.id].sort(),
      },
      { project: "demo", kind: "run", ids: ["r1"] },
      { project: "demo", kind: "journal", ids: [entry.id] },
      { project: "demo", kind: "run", ids: ["r1"] },
      { project: "demo", kind: "items", ids: [finished.episode.id] },
      { project: "demo", kind: "review", ids: [entry.id] },
      { project: "demo", kind: "project", ids: [] },
    ]);
    const seqs = (await store.changesSince(0)).changes.map((change) => change.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // A promotion over a current value names the value it superseded too.
    const second = await proposeAndPromote(store, "release.branch", "Releases from main", at(T0, 20));
    const last = await after(store, 9);
    expect(last.changes.at(-1)).toEqual({
      project: "demo",
      kind: "items",
      ids: [promotion.state.id, second.consumed.id, second.state.id].sort(),
    });

    await store.removeProject("demo", { force: true }, at(T0, 30));
    expect((await after(store, last.head)).changes).toEqual([{ project: "demo", kind: "project", ids: [] }]);
  });

  test("a refused write appends nothing", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const head = await store.changeHead();
    await expect(store.createProject({ id: "demo" }, at(T0, 1))).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(store.proposeState(guideProposal({ project: "missing" }), at(T0, 1))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(store.removeProject("missing", { force: true })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await store.changeHead()).toBe(head);
    expect(await store.changesSince(head)).toEqual({ head, reset: false, changes: [] });
  });

  test("another connection's writes are seen by the next call, its own without data_version moving", async () => {
    const { store, file } = await tempStore();
    const other = await open(file);
    await store.createProject({ id: "demo" }, at(T0));
    const start = await store.changesSince(0);
    expect(start.head).toBe(1);
    // Idle: the same head again.
    expect(await store.changesSince(start.head)).toEqual({ head: 1, reset: false, changes: [] });
    const proposal = await other.proposeState(guideProposal(), at(T0, 1));
    const seen = await store.changesSince(start.head);
    expect(seen.changes).toEqual([{ seq: 2, project: "demo", kind: "items", ids: [proposal.id] }]);
    expect(await store.changesSince(seen.head)).toEqual({ head: 2, reset: false, changes: [] });
    // This connection's own write: data_version does not move for it, the feed still shows it.
    const own = await store.proposeState(guideProposal({ key: "other.key" }), at(T0, 2));
    expect((await store.changesSince(seen.head)).changes).toEqual([
      { seq: 3, project: "demo", kind: "items", ids: [own.id] },
    ]);
    // A cursor other than the last head is answered from the table, never from the idle check.
    expect((await store.changesSince(1)).changes.map((change) => change.seq)).toEqual([2, 3]);
  });

  test.runIf(ENGINE === "sqlite")(
    "writes that leave the feed alone (a packet's audit) do not make the next call read the table",
    async () => {
      const { store, file } = await tempStore();
      const other = await open(file);
      await store.createProject({ id: "demo" }, at(T0));
      const { head } = await store.changesSince(0);
      const reads = vi.spyOn(FeedReader.prototype, "since");
      try {
        await store.recordPackets([
          packetRecord("demo", `pkt_${"0".repeat(31)}1`, at(T0, 1), { runId: null }),
        ]);
        expect(await store.changesSince(head)).toEqual({ head, reset: false, changes: [] });
        expect(reads).not.toHaveBeenCalled();
        // A feed write on this connection, and a commit on another, are both still read.
        const own = await store.proposeState(guideProposal(), at(T0, 2));
        const mine = await store.changesSince(head);
        expect(mine.changes.map((change) => change.ids)).toEqual([[own.id]]);
        expect(reads).toHaveBeenCalledTimes(1);
        const theirs = await other.proposeState(guideProposal({ key: "other.key" }), at(T0, 3));
        expect((await store.changesSince(mine.head)).changes.map((change) => change.ids)).toEqual([
          [theirs.id],
        ]);
        expect(reads).toHaveBeenCalledTimes(2);
        await store.recordPackets([
          packetRecord("demo", `pkt_${"0".repeat(31)}2`, at(T0, 4), { runId: null }),
        ]);
        expect((await store.changesSince(mine.head + 1)).changes).toEqual([]);
        expect(reads).toHaveBeenCalledTimes(2);
      } finally {
        reads.mockRestore();
      }
    },
  );

  test("a cursor that cannot be continued answers reset with the head", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    expect(await store.changesSince(5)).toEqual({ head: 1, reset: true, changes: [] });
    expect(await store.changesSince(-1)).toEqual({ head: 1, reset: true, changes: [] });
    expect(await store.changesSince(1.5)).toEqual({ head: 1, reset: true, changes: [] });
  });

  test("a reader more than a batch behind is told to rebuild", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    for (let n = 0; n < 1_000; n += 1) {
      await store.startRun({ project: "demo", workflow: "w", runId: `r${n}` }, at(T0, n + 1));
    }
    // 1,000 changes follow the project's: one batch. From before the project's, 1,001: rebuild.
    expect(await store.changesSince(1)).toMatchObject({ head: 1_001, reset: false });
    expect((await store.changesSince(1)).changes).toHaveLength(1_000);
    expect(await store.changesSince(0)).toEqual({ head: 1_001, reset: true, changes: [] });
  });

  test("retention prunes changes before the horizon, keeps the newest, and resets readers behind", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await store.createProject({ id: "quiet" }, at(T0));
    const old = await proposeAndPromote(store, "k", "A", at(T0, 1_000));
    await proposeAndPromote(store, "k", "B", at(T0, 10 * DAY));
    const before = await store.changeHead();
    expect(before).toBe(6);

    // 7 days of retention at T0 + 10 days + 1 s: the first value's proposal closed at T0 + 1 s, so it goes, and
    // so do the changes written before the horizon (T0 + 3 days + 1 s): the two projects and the first promotion.
    expect(await store.purge(at(T0, 10 * DAY + 1_000), 7)).toEqual({
      items: 1,
      runs: 0,
      journal: 0,
      packets: 0,
    });
    expect(await store.getItem("demo", old.consumed.id)).toBeUndefined();
    const batch = await store.changesSince(4);
    expect(batch.head).toBe(7);
    expect(batch.changes.map(({ seq, kind, project }) => ({ seq, kind, project }))).toEqual([
      { seq: 5, kind: "items", project: "demo" },
      { seq: 6, kind: "items", project: "demo" },
      { seq: 7, kind: "purge", project: "demo" },
    ]);
    // The project that lost nothing gets no purge change; a cursor before the pruned changes must rebuild.
    expect(await store.changesSince(3)).toEqual({ head: 7, reset: true, changes: [] });
    expect(await store.changesSince(0)).toEqual({ head: 7, reset: true, changes: [] });

    // Everything is past the horizon: every change but the newest goes (pruning comes before this purge's own
    // change), and the head stays.
    expect(await store.purge(at(T0, 1_000 * DAY), 7)).toEqual({ items: 2, runs: 0, journal: 0, packets: 0 });
    const head = await store.changeHead();
    expect(head).toBe(8);
    expect(await store.changesSince(head)).toEqual({ head, reset: false, changes: [] });
    expect(await store.changesSince(head - 2)).toMatchObject({ head, reset: false });
    expect(await store.changesSince(head - 3)).toEqual({ head, reset: true, changes: [] });
  });

  test("getItems and getJournalEntries read the records a change names", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const a = await store.proposeState(guideProposal({ key: "a" }), at(T0, 1));
    const b = await store.proposeState(guideProposal({ key: "b" }), at(T0, 2));
    expect(await store.getItems("demo", [b.id, "state_missing", a.id])).toEqual(
      [a, b].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(await store.getItems("other", [a.id])).toEqual([]);
    expect(await store.getItems("demo", [])).toEqual([]);
    await store.startRun({ project: "demo", workflow: "w", runId: "r" }, at(T0, 3));
    const e1 = await store.appendJournal(
      { project: "demo", runId: "r", category: "decision", summary: "one" },
      at(T0, 5),
    );
    const e2 = await store.appendJournal(
      { project: "demo", runId: "r", category: "observation", summary: "two" },
      at(T0, 4),
    );
    expect(await store.getJournalEntries("demo", [e1.id, e2.id, "j_missing"])).toEqual([e2, e1]);
  });
});
