// The session tracker: one SQLite file per machine user, so separate CLI invocations, an agent and a crashed
// agent see one truth about the sessions KXM created and who holds them. WAL, a busy timeout, and every
// read-modify-write in one BEGIN IMMEDIATE transaction, so two processes never both win a transition.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { KxmError } from "@kxm/contract";
import Database from "better-sqlite3";
import type { ControlState, TrackedSession } from "./types.js";

/** The tracker's folder is the owner's only; the database and its -wal and -shm files too. */
export const TRACKER_DIR_MODE = 0o700;
export const TRACKER_FILE_MODE = 0o600;
/** The database's file name inside the state folder. */
export const TRACKER_FILE = "sessions.db";
const BUSY_TIMEOUT_MS = 5_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  deployment TEXT NOT NULL,
  id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_activity_at INTEGER NOT NULL,
  timeout_ms INTEGER NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  owner TEXT,
  released_at INTEGER,
  release_cause TEXT,
  PRIMARY KEY (deployment, id)
) STRICT;
CREATE TABLE IF NOT EXISTS transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment TEXT NOT NULL,
  id TEXT NOT NULL,
  at INTEGER NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  detail TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS transitions_by_session ON transitions (deployment, id, seq);
`;

interface Row {
  deployment: string;
  id: string;
  created_at: number;
  last_activity_at: number;
  timeout_ms: number;
  state: string;
  reason: string | null;
  owner: string | null;
  released_at: number | null;
  release_cause: string | null;
}

/** One line of a session's history: a state it entered, when, and why. */
export interface Transition {
  at: number;
  from?: ControlState;
  to: ControlState;
  detail?: string;
}

function fromRow(row: Row): TrackedSession {
  return {
    id: row.id,
    deployment: row.deployment,
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    timeoutMs: row.timeout_ms,
    state: row.state as ControlState,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.owner === null ? {} : { owner: row.owner }),
    ...(row.released_at === null ? {} : { releasedAt: row.released_at }),
    ...(row.release_cause === null ? {} : { releaseCause: row.release_cause }),
  };
}

function toParams(session: TrackedSession): Row {
  return {
    deployment: session.deployment,
    id: session.id,
    created_at: session.createdAt,
    last_activity_at: session.lastActivityAt,
    timeout_ms: session.timeoutMs,
    state: session.state,
    reason: session.reason ?? null,
    owner: session.owner ?? null,
    released_at: session.releasedAt ?? null,
    release_cause: session.releaseCause ?? null,
  };
}

function tighten(path: string, mode: number): void {
  try {
    if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
  }
}

/** The tracker database in `stateDir` (created 0700, the file 0600). */
export class SessionTracker {
  readonly file: string;
  readonly #db: Database.Database;

  constructor(stateDir: string) {
    this.file = join(stateDir, TRACKER_FILE);
    try {
      mkdirSync(stateDir, { recursive: true, mode: TRACKER_DIR_MODE });
      tighten(stateDir, TRACKER_DIR_MODE);
      closeSync(openSync(this.file, "a", TRACKER_FILE_MODE));
      tighten(this.file, TRACKER_FILE_MODE);
      this.#db = new Database(this.file, { timeout: BUSY_TIMEOUT_MS });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new KxmError(
        "file_unwritable",
        `cannot open the browser session tracker ${this.file}: ${reason}`,
      );
    }
    try {
      this.#db.pragma("journal_mode = WAL");
      this.#db.pragma("synchronous = NORMAL");
      this.#db.transaction(() => this.#db.exec(SCHEMA)).immediate();
      for (const path of [`${this.file}-wal`, `${this.file}-shm`]) tighten(path, TRACKER_FILE_MODE);
    } catch (error) {
      this.#db.close();
      const reason = error instanceof Error ? error.message : String(error);
      throw new KxmError("internal_error", `cannot open the browser session tracker ${this.file}: ${reason}`);
    }
  }

  get(deployment: string, id: string): TrackedSession | undefined {
    const row = this.#db
      .prepare("SELECT * FROM sessions WHERE deployment = ? AND id = ?")
      .get(deployment, id) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** Every row of the deployment, by id (code units: SQLite's BINARY collation). */
  list(deployment: string): TrackedSession[] {
    const rows = this.#db
      .prepare("SELECT * FROM sessions WHERE deployment = ? ORDER BY id COLLATE BINARY")
      .all(deployment) as Row[];
    return rows.map(fromRow);
  }

  /** Records a session (a new one, or one seen again under the same id), with its first transition. */
  insert(session: TrackedSession, detail: string): void {
    this.#db
      .transaction(() => {
        this.#db
          .prepare(
            `INSERT OR REPLACE INTO sessions VALUES (@deployment, @id, @created_at, @last_activity_at, @timeout_ms,
             @state, @reason, @owner, @released_at, @release_cause)`,
          )
          .run(toParams(session));
        this.#record(
          session.deployment,
          session.id,
          session.lastActivityAt,
          undefined,
          session.state,
          detail,
        );
      })
      .immediate();
  }

  /**
   * Reads the row, gives it to `change` and writes what it returns, in one BEGIN IMMEDIATE transaction: no other
   * connection writes in between. `change` must be synchronous; it may throw (nothing is written) or return the
   * row unchanged. A change of state is recorded in the history with `detail`.
   */
  update(
    deployment: string,
    id: string,
    change: (current: TrackedSession | undefined) => TrackedSession | undefined,
    detail?: string,
  ): TrackedSession | undefined {
    return this.#db
      .transaction(() => {
        const current = this.get(deployment, id);
        const next = change(current);
        if (next === undefined || next === current) return current;
        if (next.deployment !== deployment || next.id !== id) {
          throw new KxmError("internal_error", "a tracker update changed the session's identity");
        }
        this.#db
          .prepare(
            `INSERT OR REPLACE INTO sessions VALUES (@deployment, @id, @created_at, @last_activity_at, @timeout_ms,
             @state, @reason, @owner, @released_at, @release_cause)`,
          )
          .run(toParams(next));
        if (current === undefined || current.state !== next.state) {
          this.#record(deployment, id, next.lastActivityAt, current?.state, next.state, detail);
        }
        return next;
      })
      .immediate();
  }

  /** The session's transitions, oldest first. */
  history(deployment: string, id: string): Transition[] {
    const rows = this.#db
      .prepare(
        "SELECT at, from_state, to_state, detail FROM transitions WHERE deployment = ? AND id = ? ORDER BY seq",
      )
      .all(deployment, id) as {
      at: number;
      from_state: string | null;
      to_state: string;
      detail: string | null;
    }[];
    return rows.map((row) => ({
      at: row.at,
      ...(row.from_state === null ? {} : { from: row.from_state as ControlState }),
      to: row.to_state as ControlState,
      ...(row.detail === null ? {} : { detail: row.detail }),
    }));
  }

  #record(
    deployment: string,
    id: string,
    at: number,
    from: ControlState | undefined,
    to: ControlState,
    detail?: string,
  ) {
    this.#db
      .prepare(
        "INSERT INTO transitions (deployment, id, at, from_state, to_state, detail) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(deployment, id, at, from ?? null, to, detail ?? null);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
