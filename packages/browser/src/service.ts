// openBrowser(): the Steel client, the tracker and the takeover state machine together. Every answer from the
// server is checked against what the tracker believes, and what the server says wins: a session it no longer
// has live is marked released, with the cause.
import { compareCodeUnits, KxmError } from "@kxm/contract";
import pLimit from "p-limit";
import { SteelClient } from "./client.js";
import type { SteelConfig } from "./config.js";
import { isLive } from "./schema.js";
import { DEFAULT_IDLE_MS, planSweep, type SweepEntry } from "./sweep.js";
import { applyEvent, assertAgentMayAct, nextState, type TakeoverEvent } from "./takeover.js";
import { SessionTracker } from "./tracker.js";
import type { ControlState, SignedInCheck, SteelSession, TrackedSession } from "./types.js";
import { cdpUrl, deploymentOf, viewerUrl } from "./urls.js";
import { verifySignedIn } from "./verify.js";

/** The session timeout KXM asks for when none is given: 5 minutes, the guide's default. */
export const DEFAULT_SESSION_TIMEOUT_MS = 300_000;
/** The longest takeover reason KXM records. */
const MAX_REASON_LENGTH = 500;
/** How often waitFor() asks the server whether the session is still live. */
const REMOTE_CHECK_MS = 5_000;
const CAUSE_OTHER_CREATED = "released by the server when another session was created";

export interface SweepReport {
  dryRun: boolean;
  idleMs: number;
  /** The plan, sorted by id. */
  entries: SweepEntry[];
  /** The sessions released (empty on a dry run). */
  released: string[];
  /** The tracked sessions marked released because the server no longer has them live. */
  markedReleased: string[];
}

export interface BrowserOptions {
  /** The clock (epoch milliseconds); `Date.now` unless a test gives another. */
  now?: () => number;
  /** Who creates sessions: a project root, an agent id. Recorded on each new row. */
  owner?: string;
}

export interface Browser {
  create(options?: {
    timeoutMs?: number;
  }): Promise<{ session: TrackedSession; viewerUrl: string; warnings: string[] }>;
  status(id: string): Promise<{ tracked?: TrackedSession; remote?: SteelSession; viewerUrl: string }>;
  list(): Promise<Array<{ id: string; tracked?: TrackedSession; remote?: SteelSession }>>;
  release(id: string, actor: "agent" | "operator"): Promise<TrackedSession>;
  cdpUrl(id: string): Promise<string>;
  viewerUrl(id: string): string;
  /** What the tracker holds of the session, without asking the server. */
  tracked(id: string): TrackedSession | undefined;
  requestTakeover(id: string, reason: string): Promise<{ session: TrackedSession; viewerUrl: string }>;
  confirm(id: string): Promise<TrackedSession>;
  resume(id: string, check: SignedInCheck): Promise<TrackedSession>;
  waitFor(
    id: string,
    states: ControlState[],
    options: { timeoutMs: number; pollMs?: number },
  ): Promise<TrackedSession>;
  sweep(options: { dryRun: boolean; idleMs?: number }): Promise<SweepReport>;
  scrape(input: { url: string; format?: "html" | "markdown" | "text" }): Promise<unknown>;
  screenshot(input: { url: string; fullPage?: boolean }): Promise<Uint8Array>;
  close(): void;
}

/** Why KXM holds a session ended, from what the server answered for it (undefined: it has no such session). */
function endCause(remote: SteelSession | undefined): string {
  return remote === undefined ? "gone from the server" : `the server says ${remote.status}`;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

class BrowserService implements Browser {
  readonly #config: SteelConfig;
  readonly #client: SteelClient;
  readonly #tracker: SessionTracker;
  readonly #deployment: string;
  readonly #now: () => number;
  readonly #owner: string | undefined;

  constructor(config: SteelConfig, options: BrowserOptions) {
    this.#config = config;
    this.#client = new SteelClient(config);
    this.#deployment = deploymentOf(config.apiUrl);
    this.#now = options.now ?? Date.now;
    this.#owner = options.owner;
    this.#tracker = new SessionTracker(config.stateDir);
  }

  /** The server's session, or undefined when it answers 404. */
  async #remote(id: string): Promise<SteelSession | undefined> {
    try {
      return await this.#client.get(id);
    } catch (error) {
      if (codeOf(error) === "browser_session_not_found") return undefined;
      throw error;
    }
  }

  /** Applies `event` to the tracked row in one transaction; the row after it (undefined when untracked). */
  #apply(id: string, event: TakeoverEvent, detail?: string): TrackedSession | undefined {
    const now = this.#now();
    return this.#tracker.update(
      this.#deployment,
      id,
      (row) => (row === undefined ? undefined : applyEvent(row, event, now)),
      detail ?? (event.type === "ended" ? event.cause : event.type),
    );
  }

  /** Marks a tracked live row released with `cause` (no-op for untracked or released rows). */
  #markEnded(id: string, cause: string): TrackedSession | undefined {
    const now = this.#now();
    return this.#tracker.update(
      this.#deployment,
      id,
      (row) =>
        row === undefined || row.state === "RELEASED" ? row : applyEvent(row, { type: "ended", cause }, now),
      cause,
    );
  }

  #touch(id: string): TrackedSession | undefined {
    const now = this.#now();
    return this.#tracker.update(this.#deployment, id, (row) =>
      row === undefined || row.state === "RELEASED" || row.lastActivityAt >= now
        ? row
        : { ...row, lastActivityAt: now },
    );
  }

  #newRow(session: SteelSession, timeoutMs: number | undefined): TrackedSession {
    const now = this.#now();
    const created = session.createdAt === undefined ? Number.NaN : Date.parse(session.createdAt);
    return {
      id: session.id,
      deployment: this.#deployment,
      createdAt: Number.isFinite(created) ? created : now,
      lastActivityAt: now,
      timeoutMs: timeoutMs ?? session.timeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
      state: "AGENT_CONTROL",
      ...(this.#owner === undefined ? {} : { owner: this.#owner }),
    };
  }

  /**
   * The tracked row of a session the server still has live. An untracked live session is adopted (tracked from
   * now on); a tracked one the server no longer has live is marked released and refused.
   */
  async #live(id: string, action: string): Promise<TrackedSession> {
    const row = this.#tracker.get(this.#deployment, id);
    if (row?.state === "RELEASED") assertAgentMayAct(row, action);
    const remote = await this.#remote(id);
    if (remote === undefined || !isLive(remote)) {
      const cause = endCause(remote);
      if (row === undefined) {
        if (remote === undefined)
          throw new KxmError("browser_session_not_found", `no session ${id} on the server`);
        throw new KxmError("browser_session_released", `session ${id} is released (${cause}): no ${action}`);
      }
      const ended = this.#markEnded(id, cause) ?? row;
      assertAgentMayAct(ended, action);
    }
    if (row !== undefined) return row;
    const adopted = this.#newRow(remote as SteelSession, undefined);
    this.#tracker.update(
      this.#deployment,
      id,
      (current) => current ?? adopted,
      "adopted: a live session KXM did not create",
    );
    return this.#tracker.get(this.#deployment, id) ?? adopted;
  }

  async create(options: { timeoutMs?: number } = {}) {
    const before = await this.#client.list();
    const liveBefore = new Set(before.filter(isLive).map((s) => s.id));
    const created = await this.#client.create(options);
    const readBack = await this.#remote(created.id);
    if (readBack === undefined || !isLive(readBack)) {
      const found = readBack === undefined ? "not on the server" : `status ${readBack.status}`;
      throw new KxmError(
        "browser_answer_invalid",
        `Steel created session ${created.id}, but reading it back found it ${found}`,
      );
    }
    const after = await this.#client.list();
    const liveAfter = new Set(after.filter(isLive).map((s) => s.id));
    const warnings: string[] = [];
    for (const row of this.#tracker.list(this.#deployment)) {
      if (row.state === "RELEASED" || row.id === created.id || liveAfter.has(row.id)) continue;
      if (liveBefore.has(row.id)) {
        this.#markEnded(row.id, CAUSE_OTHER_CREATED);
        warnings.push(
          `session ${row.id} was ${CAUSE_OTHER_CREATED} (this deployment keeps one session at a time)`,
        );
      } else {
        this.#markEnded(row.id, "gone from the server");
      }
    }
    const row = this.#newRow(readBack, options.timeoutMs);
    this.#tracker.insert(row, "created");
    return { session: row, viewerUrl: this.viewerUrl(row.id), warnings };
  }

  async status(id: string) {
    const remote = await this.#remote(id);
    let tracked = this.#tracker.get(this.#deployment, id);
    if (tracked !== undefined && tracked.state !== "RELEASED") {
      if (remote === undefined || !isLive(remote)) {
        tracked = this.#markEnded(id, endCause(remote));
      } else {
        tracked = this.#touch(id);
      }
    }
    if (tracked === undefined && remote === undefined) {
      throw new KxmError("browser_session_not_found", `no session ${id} on the server, and KXM tracks none`);
    }
    return {
      ...(tracked === undefined ? {} : { tracked }),
      ...(remote === undefined ? {} : { remote }),
      viewerUrl: this.viewerUrl(id),
    };
  }

  async list() {
    const remote = await this.#client.list();
    const byId = new Map<string, { id: string; tracked?: TrackedSession; remote?: SteelSession }>();
    for (const session of remote) byId.set(session.id, { id: session.id, remote: session });
    for (const row of this.#tracker.list(this.#deployment)) {
      byId.set(row.id, { ...(byId.get(row.id) ?? { id: row.id }), tracked: row });
    }
    return [...byId.values()].sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  async release(id: string, actor: "agent" | "operator") {
    const row = this.#tracker.get(this.#deployment, id);
    if (row?.state === "RELEASED") return row;
    // Read the session back first: a deployment that ignores the id on release (open-source Steel) releases
    // whatever session it holds now, so KXM asks for a release only of a session the server still has live.
    let remote = await this.#remote(id);
    if (remote !== undefined && isLive(remote)) {
      try {
        await this.#client.release(id);
      } catch (error) {
        if (codeOf(error) !== "browser_session_not_found") throw error;
        remote = undefined;
      }
    }
    const ended = remote === undefined || !isLive(remote);
    const cause = ended ? endCause(remote) : `released by the ${actor}`;
    if (row === undefined) {
      if (remote === undefined) {
        throw new KxmError(
          "browser_session_not_found",
          `no session ${id} on the server, and KXM tracks none`,
        );
      }
      const released: TrackedSession = {
        ...this.#newRow({ id }, undefined),
        state: "RELEASED",
        releasedAt: this.#now(),
        releaseCause: cause,
      };
      this.#tracker.insert(released, cause);
      return released;
    }
    const event: TakeoverEvent = ended ? { type: "ended", cause } : { type: "release", cause };
    return this.#tracker.update(
      this.#deployment,
      id,
      (current) =>
        current === undefined || current.state === "RELEASED"
          ? current
          : applyEvent(current, event, this.#now()),
      cause,
    ) as TrackedSession;
  }

  async cdpUrl(id: string) {
    const row = await this.#live(id, "CDP URL");
    assertAgentMayAct(row, "CDP URL");
    this.#touch(id);
    return cdpUrl(this.#config.apiUrl, id, this.#config.key);
  }

  viewerUrl(id: string) {
    return viewerUrl(this.#config, id);
  }

  tracked(id: string) {
    return this.#tracker.get(this.#deployment, id);
  }

  async requestTakeover(id: string, reason: string) {
    const text = reason.trim().replace(/\s+/g, " ");
    if (text === "" || text.length > MAX_REASON_LENGTH) {
      throw new KxmError("invalid_usage", `a takeover reason must be 1 to ${MAX_REASON_LENGTH} characters`);
    }
    await this.#live(id, "takeover");
    const session = this.#apply(
      id,
      { type: "request_takeover", reason: text },
      `takeover requested: ${text}`,
    );
    return { session: session as TrackedSession, viewerUrl: this.viewerUrl(id) };
  }

  /** The tracked row, for the operator's steps: untracked is not found, released is refused. */
  async #trackedLive(id: string, step: string): Promise<TrackedSession> {
    const row = this.#tracker.get(this.#deployment, id);
    if (row === undefined) {
      throw new KxmError(
        "browser_session_not_found",
        `KXM tracks no session ${id}: request a takeover first`,
      );
    }
    return this.#live(id, step);
  }

  async confirm(id: string) {
    const row = await this.#trackedLive(id, "operator confirmation");
    nextState(row.state, "operator_confirm");
    return this.#apply(id, { type: "operator_confirm" }, "the operator confirmed") as TrackedSession;
  }

  async resume(id: string, check: SignedInCheck) {
    if (check.url === undefined && check.selector === undefined && check.text === undefined) {
      throw new KxmError("invalid_usage", "a signed-in check needs a URL substring, a selector or a text");
    }
    const row = await this.#trackedLive(id, "resume");
    nextState(row.state, "verified");
    const result = await verifySignedIn(cdpUrl(this.#config.apiUrl, id, this.#config.key), check, {
      timeoutMs: this.#config.requestTimeoutMs,
      secret: this.#config.key,
    });
    if (result.ok)
      return this.#apply(id, { type: "verified" }, `verified: ${result.detail}`) as TrackedSession;
    this.#apply(id, { type: "verification_failed" }, `verification failed: ${result.detail}`);
    throw new KxmError(
      "browser_verification_failed",
      `session ${id}: the signed-in check did not hold (${result.detail}); it is back in HUMAN_CONTROL`,
    );
  }

  async waitFor(id: string, states: ControlState[], options: { timeoutMs: number; pollMs?: number }) {
    const pollMs = options.pollMs ?? 500;
    // Waiting is measured on the monotonic clock, not the injected one (which dates the records).
    const start = performance.now();
    let lastRemote = start;
    for (;;) {
      const row = this.#tracker.get(this.#deployment, id);
      if (row === undefined) throw new KxmError("browser_session_not_found", `KXM tracks no session ${id}`);
      if (states.includes(row.state)) return row;
      if (row.state === "RELEASED") assertAgentMayAct(row, "wait");
      const now = performance.now();
      if (now - lastRemote >= REMOTE_CHECK_MS) {
        lastRemote = now;
        const remote = await this.#remote(id);
        if (remote === undefined || !isLive(remote)) {
          this.#markEnded(id, endCause(remote));
          continue;
        }
      }
      if (now - start >= options.timeoutMs) {
        throw new KxmError(
          row.state === "HUMAN_CONTROL" ? "browser_human_control" : "browser_takeover_invalid",
          `session ${id} is still in ${row.state} after ${options.timeoutMs} ms (waiting for ${states.join(" or ")})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  async sweep(options: { dryRun: boolean; idleMs?: number }) {
    const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    let remote = await this.#client.list();
    const entries = planSweep({
      remote,
      tracked: this.#tracker.list(this.#deployment),
      nowMs: this.#now(),
      idleMs,
    });
    const report: SweepReport = { dryRun: options.dryRun, idleMs, entries, released: [], markedReleased: [] };
    if (options.dryRun) return report;
    for (const entry of entries) {
      if (entry.action !== "mark_released") continue;
      if (this.#markEnded(entry.id, entry.reason)?.state === "RELEASED") report.markedReleased.push(entry.id);
    }
    // The first release is a probe: a server that ignores the id (open-source Steel releases its one session
    // whatever id a release names) shows it here, before anything else is released. An honest server then gets
    // the rest of the plan at once, and one list at the end checks that nothing outside the plan went with it.
    const releases = entries.filter((entry) => entry.action === "release");
    let liveBefore = new Set(remote.filter(isLive).map((s) => s.id));
    for (const batch of [releases.slice(0, 1), releases.slice(1)]) {
      if (batch.length === 0) continue;
      await eachAtMost(SWEEP_CONCURRENCY, batch, async (entry) => {
        try {
          await this.#client.release(entry.id);
        } catch (error) {
          if (codeOf(error) !== "browser_session_not_found") throw error;
        }
        this.#markEnded(entry.id, `swept: ${entry.reason}`);
        report.released.push(entry.id);
      });
      report.released.sort(compareCodeUnits);
      remote = await this.#client.list();
      const liveAfter = new Set(remote.filter(isLive).map((s) => s.id));
      const planned = new Set(batch.map((entry) => entry.id));
      const alsoGone = [...liveBefore]
        .filter((id) => !planned.has(id) && !liveAfter.has(id))
        .sort(compareCodeUnits);
      if (alsoGone.length > 0) {
        const asked =
          planned.size === 1
            ? `session ${[...planned].join("")}`
            : `sessions ${[...planned].sort(compareCodeUnits).join(", ")}`;
        const were = planned.size === 1 ? "was" : "were";
        for (const id of alsoGone)
          this.#markEnded(id, `released by the server when ${asked} ${were} released`);
        throw new KxmError(
          "browser_release_mismatch",
          `releasing ${asked} also released ${alsoGone.join(", ")}: the sweep stopped (the server ignores the session id on release?); released so far: ${report.released.join(", ")}`,
        );
      }
      liveBefore = liveAfter;
    }
    return report;
  }

  scrape(input: { url: string; format?: "html" | "markdown" | "text" }) {
    return this.#client.scrape(input);
  }

  screenshot(input: { url: string; fullPage?: boolean }) {
    return this.#client.screenshot(input);
  }

  close() {
    this.#tracker.close();
  }
}

/** How many releases a sweep has in flight at once, after its first. */
const SWEEP_CONCURRENCY = 8;

/** Runs `work` on every item, at most `limit` at a time; the first failure is thrown once all have settled. */
async function eachAtMost<T>(
  limit: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  const bounded = pLimit(limit);
  const settled = await Promise.allSettled(items.map((item) => bounded(() => work(item))));
  const failed = settled.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}

/** The browser service for one Steel deployment: client, tracker and takeover rules. Close it when done. */
export function openBrowser(config: SteelConfig, options: BrowserOptions = {}): Browser {
  return new BrowserService(config, options);
}
