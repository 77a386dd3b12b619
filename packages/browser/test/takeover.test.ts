// The takeover state machine, pure: every allowed transition, every refused one, and the agent-action rule.
import type { ErrorCode } from "@kxm/contract";
import { expectKxmError } from "@kxm/test-support";
import { describe, expect, test } from "vitest";
import {
  applyEvent,
  assertAgentMayAct,
  heldByPerson,
  nextState,
  type TakeoverEvent,
} from "../src/takeover.js";
import type { ControlState, TrackedSession } from "../src/types.js";

const STATES: ControlState[] = ["AGENT_CONTROL", "HUMAN_CONTROL", "VERIFY_AUTHENTICATION", "RELEASED"];
const EVENTS = [
  "request_takeover",
  "operator_confirm",
  "verified",
  "verification_failed",
  "release",
  "ended",
] as const;

const ALLOWED: Record<string, ControlState> = {
  "AGENT_CONTROL/request_takeover": "HUMAN_CONTROL",
  "AGENT_CONTROL/release": "RELEASED",
  "AGENT_CONTROL/ended": "RELEASED",
  "HUMAN_CONTROL/operator_confirm": "VERIFY_AUTHENTICATION",
  "HUMAN_CONTROL/release": "RELEASED",
  "HUMAN_CONTROL/ended": "RELEASED",
  "VERIFY_AUTHENTICATION/verified": "AGENT_CONTROL",
  "VERIFY_AUTHENTICATION/verification_failed": "HUMAN_CONTROL",
  "VERIFY_AUTHENTICATION/release": "RELEASED",
  "VERIFY_AUTHENTICATION/ended": "RELEASED",
};

const cases = STATES.flatMap((state) => EVENTS.map((event) => [state, event] as const));

function row(state: ControlState): TrackedSession {
  return {
    id: "s1",
    deployment: "http://steel.test",
    createdAt: 1_000,
    lastActivityAt: 2_000,
    timeoutMs: 300_000,
    state,
  };
}

describe("nextState", () => {
  test.each(cases.filter(([s, e]) => ALLOWED[`${s}/${e}`] !== undefined))(
    "%s --%s--> allowed",
    (state, event) => {
      expect(nextState(state, event)).toBe(ALLOWED[`${state}/${event}`]);
    },
  );

  test.each(cases.filter(([s, e]) => ALLOWED[`${s}/${e}`] === undefined))(
    "%s --%s--> refused",
    (state, event) => {
      const error = expectKxmError(() => nextState(state, event), "browser_takeover_invalid", 409);
      expect(error.message).toBe(`a session in ${state} does not allow ${event}`);
    },
  );

  test("the table has exactly the ten transitions of the design", () => {
    expect(cases.filter(([s, e]) => ALLOWED[`${s}/${e}`] !== undefined)).toHaveLength(10);
  });
});

describe("applyEvent", () => {
  test("a takeover request records its reason and the time", () => {
    const next = applyEvent(row("AGENT_CONTROL"), { type: "request_takeover", reason: "MFA code" }, 5_000);
    expect(next).toMatchObject({ state: "HUMAN_CONTROL", reason: "MFA code", lastActivityAt: 5_000 });
    expect(next.releasedAt).toBeUndefined();
  });

  test("the whole takeover loop comes back to AGENT_CONTROL, keeping the reason", () => {
    const events: TakeoverEvent[] = [
      { type: "request_takeover", reason: "login" },
      { type: "operator_confirm" },
      { type: "verification_failed" },
      { type: "operator_confirm" },
      { type: "verified" },
    ];
    let current = row("AGENT_CONTROL");
    const seen: ControlState[] = [];
    for (const [i, event] of events.entries()) {
      current = applyEvent(current, event, 3_000 + i);
      seen.push(current.state);
    }
    expect(seen).toEqual([
      "HUMAN_CONTROL",
      "VERIFY_AUTHENTICATION",
      "HUMAN_CONTROL",
      "VERIFY_AUTHENTICATION",
      "AGENT_CONTROL",
    ]);
    expect(current).toMatchObject({ reason: "login", lastActivityAt: 3_004 });
  });

  test("a release records when and why; `ended` takes the server's cause", () => {
    expect(
      applyEvent(row("HUMAN_CONTROL"), { type: "release", cause: "released by the operator" }, 9_000),
    ).toMatchObject({ state: "RELEASED", releasedAt: 9_000, releaseCause: "released by the operator" });
    expect(applyEvent(row("AGENT_CONTROL"), { type: "release" }, 9_000).releaseCause).toBe("released");
    expect(
      applyEvent(row("VERIFY_AUTHENTICATION"), { type: "ended", cause: "gone from the server" }, 9_000),
    ).toMatchObject({ state: "RELEASED", releaseCause: "gone from the server" });
  });

  test("a clock that stepped back never moves lastActivityAt backwards", () => {
    expect(
      applyEvent(row("AGENT_CONTROL"), { type: "request_takeover", reason: "x" }, 10).lastActivityAt,
    ).toBe(2_000);
  });

  test("a refused event leaves the row as it was", () => {
    const before = row("RELEASED");
    expectKxmError(() => applyEvent(before, { type: "verified" }, 1), "browser_takeover_invalid");
    expect(before.state).toBe("RELEASED");
  });
});

describe("agent actions", () => {
  const expected: Record<ControlState, ErrorCode | undefined> = {
    AGENT_CONTROL: undefined,
    VERIFY_AUTHENTICATION: undefined,
    HUMAN_CONTROL: "browser_human_control",
    RELEASED: "browser_session_released",
  };

  test.each(STATES)("in %s", (state) => {
    const code = expected[state];
    if (code === undefined) {
      expect(() => assertAgentMayAct(row(state), "CDP URL")).not.toThrow();
    } else {
      const error = expectKxmError(() => assertAgentMayAct(row(state), "CDP URL"), code, 409);
      expect(error.message).toContain("session s1");
      expect(error.message).toContain("no CDP URL");
    }
  });

  test("a released session's message gives the cause", () => {
    const error = expectKxmError(
      () => assertAgentMayAct({ id: "s1", state: "RELEASED", releaseCause: "gone from the server" }, "exec"),
      "browser_session_released",
    );
    expect(error.message).toBe("session s1 is released (gone from the server): no exec");
  });

  test("a person holds the session in HUMAN_CONTROL and VERIFY_AUTHENTICATION only", () => {
    expect(STATES.filter(heldByPerson)).toEqual(["HUMAN_CONTROL", "VERIFY_AUTHENTICATION"]);
  });
});
