// Sweep planning, pure: each rule with an injected now, the output order, and sessions nobody can attribute.
import { describe, expect, test } from "vitest";
import { DEFAULT_IDLE_MS, planSweep } from "../src/sweep.js";
import type { ControlState, SteelSession, TrackedSession } from "../src/types.js";

const NOW = Date.parse("2026-12-02T12:00:00.000Z");
const MIN = 60_000;

function remote(id: string, ageMs: number | undefined, status = "live"): SteelSession {
  return {
    id,
    status,
    ...(ageMs === undefined ? {} : { createdAt: new Date(NOW - ageMs).toISOString() }),
  };
}

function tracked(id: string, state: ControlState, idleMs: number, timeoutMs = 120 * MIN): TrackedSession {
  return {
    id,
    deployment: "http://steel.test",
    createdAt: NOW - 60 * MIN,
    lastActivityAt: NOW - idleMs,
    timeoutMs,
    state,
  };
}

describe("planSweep", () => {
  test("the default idle limit is 10 minutes", () => {
    expect(DEFAULT_IDLE_MS).toBe(600_000);
  });

  test("an untracked live session older than the limit is released", () => {
    expect(planSweep({ remote: [remote("u1", 11 * MIN)], tracked: [], nowMs: NOW })).toEqual([
      { id: "u1", action: "release", tracked: false, reason: "untracked, older than 10 minutes" },
    ]);
  });

  test("an untracked session younger than the limit is kept", () => {
    expect(planSweep({ remote: [remote("u1", 9 * MIN)], tracked: [], nowMs: NOW })).toEqual([
      { id: "u1", action: "keep", tracked: false, reason: "untracked, younger than 10 minutes" },
    ]);
  });

  test("exactly at the limit is not yet older than it", () => {
    expect(planSweep({ remote: [remote("u1", 10 * MIN)], tracked: [], nowMs: NOW })[0]?.action).toBe("keep");
    expect(planSweep({ remote: [remote("u1", 10 * MIN + 1)], tracked: [], nowMs: NOW })[0]?.action).toBe(
      "release",
    );
  });

  test.each([
    ["no createdAt", undefined],
    ["an unparseable createdAt", "yesterday-ish"],
    ["an empty createdAt", ""],
  ])("an untracked session with %s is never swept", (_what, createdAt) => {
    const session: SteelSession = {
      id: "u1",
      status: "live",
      ...(createdAt === undefined ? {} : { createdAt }),
    };
    expect(planSweep({ remote: [session], tracked: [], nowMs: NOW + 365 * 24 * 60 * MIN })).toEqual([
      { id: "u1", action: "keep", tracked: false, reason: "cannot attribute: no creation time" },
    ]);
  });

  test("untracked sessions the server says are not live are left out", () => {
    expect(planSweep({ remote: [remote("u1", 60 * MIN, "released")], tracked: [], nowMs: NOW })).toEqual([]);
  });

  test("a session without a status counts as live", () => {
    const session: SteelSession = { id: "u1", createdAt: new Date(NOW - 20 * MIN).toISOString() };
    expect(planSweep({ remote: [session], tracked: [], nowMs: NOW })[0]?.action).toBe("release");
  });

  test.each(["HUMAN_CONTROL", "VERIFY_AUTHENTICATION"] as const)(
    "a tracked session held by a person (%s) is kept however long it is idle",
    (state) => {
      expect(
        planSweep({
          remote: [remote("t1", 99 * MIN)],
          tracked: [tracked("t1", state, 99 * MIN)],
          nowMs: NOW,
        }),
      ).toEqual([{ id: "t1", action: "keep", tracked: true, reason: `held by a person (${state})` }]);
    },
  );

  test("a tracked session idle longer than the limit is released, naming the idle time", () => {
    expect(
      planSweep({
        remote: [remote("t1", 60 * MIN)],
        tracked: [tracked("t1", "AGENT_CONTROL", 25 * MIN)],
        nowMs: NOW,
      }),
    ).toEqual([{ id: "t1", action: "release", tracked: true, reason: "tracked, idle for 25 minutes" }]);
  });

  test("a tracked session in use is kept even when it is old", () => {
    expect(
      planSweep({
        remote: [remote("t1", 60 * MIN)],
        tracked: [tracked("t1", "AGENT_CONTROL", 2 * MIN)],
        nowMs: NOW,
      }),
    ).toEqual([{ id: "t1", action: "keep", tracked: true, reason: "tracked, in use" }]);
  });

  test("a tracked session in use past its own timeout is released: the server did not end it", () => {
    expect(
      planSweep({
        remote: [remote("t1", 60 * MIN)],
        tracked: [tracked("t1", "AGENT_CONTROL", 1 * MIN, 30 * MIN)],
        nowMs: NOW,
      }),
    ).toEqual([
      {
        id: "t1",
        action: "release",
        tracked: true,
        reason: "tracked, past its timeout of 30 minutes (the server did not end it)",
      },
    ]);
    expect(
      planSweep({
        remote: [remote("t1", 60 * MIN)],
        tracked: [tracked("t1", "AGENT_CONTROL", 0, 5_000)],
        nowMs: NOW,
      })[0]?.reason,
    ).toBe("tracked, past its timeout of 5 seconds (the server did not end it)");
  });

  test("exactly at its timeout a tracked session is not yet past it", () => {
    const at = planSweep({
      remote: [remote("t1", 60 * MIN)],
      tracked: [tracked("t1", "AGENT_CONTROL", 1 * MIN, 60 * MIN)],
      nowMs: NOW,
    });
    expect(at).toEqual([{ id: "t1", action: "keep", tracked: true, reason: "tracked, in use" }]);
  });

  test.each(["HUMAN_CONTROL", "VERIFY_AUTHENTICATION"] as const)(
    "a session a person holds (%s) is kept even past its timeout",
    (state) => {
      expect(
        planSweep({
          remote: [remote("t1", 60 * MIN)],
          tracked: [tracked("t1", state, 30 * MIN, 10 * MIN)],
          nowMs: NOW,
        }),
      ).toEqual([{ id: "t1", action: "keep", tracked: true, reason: `held by a person (${state})` }]);
    },
  );

  test("a tracked session the server no longer lists is marked released", () => {
    expect(planSweep({ remote: [], tracked: [tracked("t1", "HUMAN_CONTROL", 0)], nowMs: NOW })).toEqual([
      { id: "t1", action: "mark_released", tracked: true, reason: "gone from the server" },
    ]);
  });

  test("a tracked session the server lists as released is marked released", () => {
    expect(
      planSweep({
        remote: [remote("t1", 5 * MIN, "released")],
        tracked: [tracked("t1", "AGENT_CONTROL", 0)],
        nowMs: NOW,
      }),
    ).toEqual([{ id: "t1", action: "mark_released", tracked: true, reason: "the server says released" }]);
  });

  test("rows already released are no longer tracking: their live session falls under the untracked rules", () => {
    expect(
      planSweep({
        remote: [remote("t1", 30 * MIN)],
        tracked: [tracked("t1", "RELEASED", 30 * MIN)],
        nowMs: NOW,
      }),
    ).toEqual([{ id: "t1", action: "release", tracked: false, reason: "untracked, older than 10 minutes" }]);
    expect(planSweep({ remote: [], tracked: [tracked("t2", "RELEASED", 30 * MIN)], nowMs: NOW })).toEqual([]);
  });

  test("idleMs changes the limit", () => {
    const plan = planSweep({
      remote: [remote("u1", 3 * MIN), remote("t1", 3 * MIN)],
      tracked: [tracked("t1", "AGENT_CONTROL", 3 * MIN)],
      nowMs: NOW,
      idleMs: 2 * MIN,
    });
    expect(plan.map((e) => [e.id, e.action, e.reason])).toEqual([
      ["t1", "release", "tracked, idle for 3 minutes"],
      ["u1", "release", "untracked, older than 2 minutes"],
    ]);
  });

  test("the plan is sorted by id in code units, whatever order the inputs came in", () => {
    const plan = planSweep({
      remote: [remote("b", 20 * MIN), remote("a", 20 * MIN), remote("B", 1 * MIN), remote("é", 20 * MIN)],
      tracked: [tracked("Z", "AGENT_CONTROL", 1 * MIN), tracked("a", "AGENT_CONTROL", 1 * MIN)],
      nowMs: NOW,
    });
    expect(plan.map((e) => e.id)).toEqual(["B", "Z", "a", "b", "é"]);
    expect(plan.find((e) => e.id === "Z")?.action).toBe("mark_released");
    expect(plan.find((e) => e.id === "a")?.action).toBe("keep");
  });

  test("the plan depends on the now it is given, not the machine's clock", () => {
    const input = { remote: [remote("u1", 5 * MIN)], tracked: [] };
    expect(planSweep({ ...input, nowMs: NOW })[0]?.action).toBe("keep");
    expect(planSweep({ ...input, nowMs: NOW + 6 * MIN })[0]?.action).toBe("release");
  });
});
