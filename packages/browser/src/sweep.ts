// Planning the orphan sweep, pure: what the server lists, what the tracker holds and the time in, a sorted plan
// out. Nothing here releases anything; the service executes the plan one release at a time.
import { compareCodeUnits } from "@kxm/contract";
import { isLive } from "./schema.js";
import { heldByPerson } from "./takeover.js";
import type { SteelSession, TrackedSession } from "./types.js";

/** How long a session may sit idle (or untracked) before the sweep releases it: 10 minutes. */
export const DEFAULT_IDLE_MS = 600_000;

/**
 * One line of the plan. `release`: ask the server to release it; `keep`: leave it; `mark_released`: the server
 * no longer has it live, so the tracker records it released.
 */
export interface SweepEntry {
  id: string;
  action: "release" | "keep" | "mark_released";
  tracked: boolean;
  reason: string;
}

export interface SweepInput {
  remote: readonly SteelSession[];
  /** The tracker's rows for this deployment (released ones are ignored). */
  tracked: readonly TrackedSession[];
  nowMs: number;
  idleMs?: number;
}

function minutes(ms: number): string {
  const n = Math.floor(ms / 60_000);
  return n === 1 ? "1 minute" : `${n} minutes`;
}

/** A span in words: seconds below a minute, else whole minutes. */
function span(ms: number): string {
  if (ms >= 60_000) return minutes(ms);
  const n = Math.ceil(ms / 1000);
  return n === 1 ? "1 second" : `${n} seconds`;
}

/** The plan for one sweep, sorted by session id (code units). */
export function planSweep(input: SweepInput): SweepEntry[] {
  const idleMs = input.idleMs ?? DEFAULT_IDLE_MS;
  const tracked = new Map<string, TrackedSession>();
  for (const row of input.tracked) if (row.state !== "RELEASED") tracked.set(row.id, row);
  const remote = new Map<string, SteelSession>();
  for (const session of input.remote) remote.set(session.id, session);

  const entries: SweepEntry[] = [];
  for (const session of remote.values()) {
    const row = tracked.get(session.id);
    if (row !== undefined) continue;
    if (!isLive(session)) continue;
    const created = session.createdAt === undefined ? Number.NaN : Date.parse(session.createdAt);
    if (!Number.isFinite(created)) {
      entries.push({
        id: session.id,
        action: "keep",
        tracked: false,
        reason: "cannot attribute: no creation time",
      });
    } else if (input.nowMs - created > idleMs) {
      entries.push({
        id: session.id,
        action: "release",
        tracked: false,
        reason: `untracked, older than ${minutes(idleMs)}`,
      });
    } else {
      entries.push({
        id: session.id,
        action: "keep",
        tracked: false,
        reason: `untracked, younger than ${minutes(idleMs)}`,
      });
    }
  }
  for (const row of tracked.values()) {
    const session = remote.get(row.id);
    if (session === undefined) {
      entries.push({ id: row.id, action: "mark_released", tracked: true, reason: "gone from the server" });
    } else if (!isLive(session)) {
      entries.push({
        id: row.id,
        action: "mark_released",
        tracked: true,
        reason: `the server says ${session.status ?? "not live"}`,
      });
    } else if (heldByPerson(row.state)) {
      entries.push({ id: row.id, action: "keep", tracked: true, reason: `held by a person (${row.state})` });
    } else if (input.nowMs - row.createdAt > row.timeoutMs) {
      // Open-source Steel ignores the timeout a create asks for: KXM ends what the server did not.
      entries.push({
        id: row.id,
        action: "release",
        tracked: true,
        reason: `tracked, past its timeout of ${span(row.timeoutMs)} (the server did not end it)`,
      });
    } else if (input.nowMs - row.lastActivityAt > idleMs) {
      entries.push({
        id: row.id,
        action: "release",
        tracked: true,
        reason: `tracked, idle for ${minutes(input.nowMs - row.lastActivityAt)}`,
      });
    } else {
      entries.push({ id: row.id, action: "keep", tracked: true, reason: "tracked, in use" });
    }
  }
  return entries.sort((a, b) => compareCodeUnits(a.id, b.id));
}
