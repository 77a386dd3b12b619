import { isKxmError } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import type { PacketRecordInput } from "../src/index.js";
import { rawQuery } from "./support/raw-sql.js";
import { packetRecord } from "./support/state-fixtures.js";
import { at, open, T0, tempStore } from "./support/temp-store.js";

// The stored packet audits (issue 20): one row per project and packet id, served counts, the newest-served-first
// listing with its cursor, retention, and removal with the project.

const DAY = 86_400_000;

function record(
  project: string,
  packetId: string,
  servedAt: Date,
  runId: string | null = null,
): PacketRecordInput {
  return packetRecord(project, packetId, servedAt, { runId });
}

const id = (n: number) => `pkt_${String(n).padStart(32, "0")}`;

describe("stored packets", () => {
  test("a packet served again keeps its first audit and counts the serving", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await store.recordPackets([record("demo", id(1), at(T0, 1_000)), record("demo", id(1), at(T0, 3_000))]);
    await store.recordPackets([{ ...record("demo", id(1), at(T0, 2_000)), changeSeq: 99 }]);
    const stored = await store.getPacket("demo", id(1));
    expect(stored).toMatchObject({
      firstServedAt: at(T0, 1_000).toISOString(),
      lastServedAt: at(T0, 3_000).toISOString(),
      timesServed: 3,
      changeSeq: 3,
      runId: null,
    });
    expect(stored?.audit.request).toEqual({ project: "demo", role: "planner", taskChars: 12 });
    expect(await store.getPacket("other", id(1))).toBeUndefined();
  });

  test("two processes storing the same packets in opposite orders both succeed, with every serving counted", async () => {
    // On PostgreSQL two hubs' batches lock the same rows; in different orders they would deadlock, and the
    // server would fail one batch after a second.
    const { store, file } = await tempStore();
    const other = await open(file);
    try {
      await store.createProject({ id: "demo" }, at(T0));
      const batch = Array.from({ length: 20 }, (_, n) => record("demo", id(n), at(T0, n)));
      const reversed = [...batch].reverse();
      for (let round = 0; round < 10; round += 1) {
        await Promise.all([
          store.recordPackets(batch),
          other.recordPackets(reversed),
          store.recordPackets(reversed),
          other.recordPackets(batch),
        ]);
      }
      expect((await store.getPacket("demo", id(0)))?.timesServed).toBe(40);
      expect((await other.getPacket("demo", id(19)))?.timesServed).toBe(40);
    } finally {
      await other.close();
    }
  });

  test("an unknown project rejects the whole batch", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await expect(
      store.recordPackets([record("demo", id(1), at(T0)), record("nowhere", id(2), at(T0))]),
    ).rejects.toThrow();
    expect(await store.getPacket("demo", id(1))).toBeUndefined();
  });

  test("a large batch is stored whole or, with one unknown project in it, not at all", async () => {
    const { store, file } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    const batch = Array.from({ length: 1_200 }, (_, n) => record("demo", id(n), at(T0, n)));
    await expect(store.recordPackets([...batch, record("nowhere", id(0), at(T0))])).rejects.toThrow();
    const stored = async () => {
      const [row] = await rawQuery(
        file,
        "select count(*) as n, count(inputs) as inputs, sum(times_served) as served from packet_audits",
      );
      return { n: Number(row?.n), inputs: Number(row?.inputs), served: Number(row?.served ?? 0) };
    };
    expect(await stored()).toEqual({ n: 0, inputs: 0, served: 0 });
    await store.recordPackets([...batch, ...batch.slice(0, 10)]);
    // No audit carries inputs: the column holds SQL NULL, not the JSON text "null".
    expect(await stored()).toEqual({ n: 1_200, inputs: 0, served: 1_210 });
    expect(await store.getPacket("demo", id(1_199))).toMatchObject({ timesServed: 1, inputs: null });
    expect(await store.getPacket("demo", id(9))).toMatchObject({
      timesServed: 2,
      lastServedAt: at(T0, 9).toISOString(),
    });
  });

  test("listed last served first, by run, a page at a time; a bad cursor or limit is invalid_request", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    // Two packets served at the same instant are ordered by id, descending.
    await store.recordPackets([
      record("demo", id(1), at(T0, 1)),
      record("demo", id(2), at(T0, 2), "run-a"),
      record("demo", id(3), at(T0, 2)),
      record("demo", id(4), at(T0, 4), "run-a"),
    ]);
    const first = await store.listPackets("demo", { limit: 3 });
    expect(first.packets.map((p) => p.packetId)).toEqual([id(4), id(3), id(2)]);
    const rest = await store.listPackets("demo", { limit: 3, before: first.nextCursor! });
    expect(rest.packets.map((p) => p.packetId)).toEqual([id(1)]);
    expect(rest.nextCursor).toBeUndefined();
    const run = await store.listPackets("demo", { limit: 50, runId: "run-a" });
    expect(run.packets.map((p) => p.packetId)).toEqual([id(4), id(2)]);
    for (const bad of [
      () => store.listPackets("demo", { limit: 51 }),
      () => store.listPackets("demo", { limit: 1, before: "x" }),
    ]) {
      const error = await bad().catch((caught: unknown) => caught);
      expect(isKxmError(error) && error.code).toBe("invalid_request");
    }
  });

  test("retention deletes packets not served within the period, with no change in the feed", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await store.recordPackets([record("demo", id(1), at(T0)), record("demo", id(2), at(T0, 10 * DAY))]);
    const head = await store.changeHead();
    expect(await store.purge(at(T0, 7 * DAY), 7)).toEqual({ items: 0, runs: 0, journal: 0, packets: 0 });
    expect(await store.purge(at(T0, 7 * DAY + 1), 7)).toEqual({ items: 0, runs: 0, journal: 0, packets: 1 });
    expect((await store.listPackets("demo", { limit: 50 })).packets.map((p) => p.packetId)).toEqual([id(2)]);
    expect(await store.changeHead()).toBe(head);
  });

  test("removing a project removes its packets", async () => {
    const { store } = await tempStore();
    await store.createProject({ id: "demo" }, at(T0));
    await store.recordPackets([record("demo", id(1), at(T0))]);
    await store.removeProject("demo", { force: false }, at(T0));
    await store.createProject({ id: "demo" }, at(T0, 1));
    expect(await store.getPacket("demo", id(1))).toBeUndefined();
  });
});
