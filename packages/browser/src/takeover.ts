// The takeover state machine of the browser guide, pure. One controller at a time: the agent in AGENT_CONTROL
// (and in VERIFY_AUTHENTICATION, where it must inspect the page to verify), a person in HUMAN_CONTROL.
import { KxmError } from "@kxm/contract";
import type { ControlState, TrackedSession } from "./types.js";

export type TakeoverEvent =
  | { type: "request_takeover"; reason: string }
  | { type: "operator_confirm" }
  | { type: "verified" }
  | { type: "verification_failed" }
  | { type: "release"; cause?: string }
  | { type: "ended"; cause: string };

type EventType = TakeoverEvent["type"];

/** The allowed transitions: from a state, by an event, to a state. `ended` is allowed from every live state. */
const TRANSITIONS: Readonly<Record<ControlState, Partial<Record<EventType, ControlState>>>> = {
  AGENT_CONTROL: { request_takeover: "HUMAN_CONTROL", release: "RELEASED", ended: "RELEASED" },
  HUMAN_CONTROL: { operator_confirm: "VERIFY_AUTHENTICATION", release: "RELEASED", ended: "RELEASED" },
  VERIFY_AUTHENTICATION: {
    verified: "AGENT_CONTROL",
    verification_failed: "HUMAN_CONTROL",
    release: "RELEASED",
    ended: "RELEASED",
  },
  RELEASED: {},
};

/** The state `event` leads to from `state`; `browser_takeover_invalid` naming both when it is not allowed. */
export function nextState(state: ControlState, event: EventType): ControlState {
  const next = TRANSITIONS[state][event];
  if (next === undefined) {
    throw new KxmError("browser_takeover_invalid", `a session in ${state} does not allow ${event}`);
  }
  return next;
}

/** The tracked row after `event` at `nowMs`: new state, the takeover's reason, the release time and cause. */
export function applyEvent(session: TrackedSession, event: TakeoverEvent, nowMs: number): TrackedSession {
  const state = nextState(session.state, event.type);
  const next: TrackedSession = { ...session, state, lastActivityAt: Math.max(session.lastActivityAt, nowMs) };
  if (event.type === "request_takeover") next.reason = event.reason;
  if (state === "RELEASED") {
    next.releasedAt = nowMs;
    next.releaseCause =
      (event.type === "ended" || event.type === "release" ? event.cause : undefined) ?? "released";
  }
  return next;
}

/** True when a person holds the session: the sweep keeps it, and agent actions wait. */
export function heldByPerson(state: ControlState): boolean {
  return state === "HUMAN_CONTROL" || state === "VERIFY_AUTHENTICATION";
}

/**
 * Refuses an agent action (a CDP URL, exec, a navigation) on the session: `browser_human_control` while a person
 * holds it, `browser_session_released` once it is released. AGENT_CONTROL and VERIFY_AUTHENTICATION allow it.
 */
export function assertAgentMayAct(
  session: Pick<TrackedSession, "id" | "state" | "releaseCause">,
  action: string,
): void {
  if (session.state === "HUMAN_CONTROL") {
    throw new KxmError(
      "browser_human_control",
      `session ${session.id} is held by a person (HUMAN_CONTROL): no ${action} until the operator confirms and the agent resumes`,
    );
  }
  if (session.state === "RELEASED") {
    const cause = session.releaseCause === undefined ? "" : ` (${session.releaseCause})`;
    throw new KxmError("browser_session_released", `session ${session.id} is released${cause}: no ${action}`);
  }
}
