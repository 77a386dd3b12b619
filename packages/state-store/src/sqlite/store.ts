import {
  type AgentKeyRecord,
  type ContextItem,
  type JournalEntry,
  type JournalReview,
  KxmError,
  type OperatorRecord,
  type ProjectRecord,
  type ReviewedJournalEntry,
  type Revocation,
  type RunRecord,
  type StoredPacket,
  type Tombstone,
} from "@kxm/contract";
import type Database from "better-sqlite3";
import { namedRecords } from "../domain/changes.js";
import type { InspectorSessionRecord } from "../domain/sessions.js";
import type {
  AgentIdentity,
  AppendJournalInput,
  CatchUp,
  ChangeBatch,
  EpisodePage,
  EpisodePageOptions,
  FinishRunInput,
  ForgetInput,
  JournalFilter,
  KxmStore,
  LiftInput,
  OperatorIdentity,
  PacketPage,
  PacketPageOptions,
  PacketRecordInput,
  ProjectSnapshot,
  PurgeCounts,
  RecordsAsOf,
  RemovedProject,
  ReviewJournalInput,
  RevokeInput,
  StartRunInput,
  StateContradiction,
  StatePromotion,
  StatePromotionInput,
  StateProposalInput,
  WithholdRules,
} from "../types.js";
import { ChangedRecords } from "./changed-records.js";
import * as feed from "./changes.js";
import * as credentials from "./credentials.js";
import type { Db } from "./db.js";
import { listEpisodes } from "./episodes.js";
import { findItem, liveItems } from "./items.js";
import * as journal from "./journal.js";
import * as operators from "./operators.js";
import * as packets from "./packets.js";
import * as projects from "./projects.js";
import { purge } from "./retention.js";
import * as reviews from "./reviews.js";
import * as runs from "./runs.js";
import * as sessions from "./sessions.js";
import * as state from "./state.js";
import * as versions from "./versions.js";
import * as withhold from "./withhold.js";

/**
 * The SQLite implementation of {@link KxmStore}. better-sqlite3 is synchronous, so each method does its work at
 * once and returns a settled promise; a throw becomes a rejection.
 */
export class SqliteKxmStore implements KxmStore {
  readonly path: string;
  readonly #db: Db;
  readonly #sqlite: Database.Database;
  /** `PRAGMA data_version`: changes when another connection commits (this connection's commits leave it). */
  readonly #dataVersion: Database.Statement;
  /** What the last {@link changesSince} saw: an answer for the same head while neither moved is "nothing". */
  #seen: { head: number; dataVersion: unknown; feedWrites: number } | undefined;
  readonly #feed: feed.FeedReader;
  readonly #changed: ChangedRecords;
  readonly #packets: packets.PacketRecorder;

  constructor(path: string, db: Db, sqlite: Database.Database) {
    this.path = path;
    this.#db = db;
    this.#sqlite = sqlite;
    this.#dataVersion = sqlite.prepare("pragma data_version").pluck();
    this.#feed = new feed.FeedReader(sqlite);
    this.#changed = new ChangedRecords(sqlite);
    this.#packets = new packets.PacketRecorder(sqlite);
  }

  /** Runs `work` on the open database; after `close()` every call rejects with `internal_error`. */
  async #run<T>(work: (db: Db) => T): Promise<T> {
    if (!this.#sqlite.open) throw new KxmError("internal_error", `the KXM database ${this.path} is closed`);
    return work(this.#db);
  }

  createProject(input: { id: string; checkoutRoot?: string | null }, now: Date): Promise<ProjectRecord> {
    return this.#run((db) => projects.createProject(db, input, now));
  }
  getProject(id: string): Promise<ProjectRecord | undefined> {
    return this.#run((db) => projects.getProject(db, id));
  }
  listProjects(): Promise<ProjectRecord[]> {
    return this.#run((db) => projects.listProjects(db));
  }

  createAgentKey(project: string, agentId: string, now: Date): Promise<{ agentId: string; key: string }> {
    return this.#run((db) => credentials.createAgentKey(db, project, agentId, now));
  }
  revokeAgentKey(project: string, agentId: string, now: Date): Promise<boolean> {
    return this.#run((db) => credentials.revokeAgentKey(db, project, agentId, now));
  }
  authenticateAgent(key: string): Promise<AgentIdentity | undefined> {
    return this.#run((db) => credentials.authenticateAgent(db, key));
  }
  listAgentKeys(project: string): Promise<AgentKeyRecord[]> {
    return this.#run((db) => credentials.listAgentKeys(db, project));
  }
  rotateAgentKey(project: string, agentId: string, now: Date): Promise<{ agentId: string; key: string }> {
    return this.#run((db) => credentials.rotateAgentKey(db, project, agentId, now));
  }
  updateProject(id: string, input: { checkoutRoot: string | null }, now?: Date): Promise<ProjectRecord> {
    return this.#run((db) => projects.updateProject(db, id, input, now));
  }
  removeProject(id: string, options: { force: boolean }, now?: Date): Promise<RemovedProject> {
    return this.#run((db) => projects.removeProject(db, id, options, now));
  }
  createOperator(name: string, now: Date): Promise<{ name: string; token: string }> {
    return this.#run((db) => operators.createOperator(db, name, now));
  }
  revokeOperator(name: string, now: Date): Promise<boolean> {
    return this.#run((db) => operators.revokeOperator(db, name, now));
  }
  listOperators(): Promise<OperatorRecord[]> {
    return this.#run((db) => operators.listOperators(db));
  }
  authenticateOperator(token: string): Promise<OperatorIdentity | undefined> {
    return this.#run((db) => operators.authenticateOperator(db, token));
  }
  openInspectorSession(session: InspectorSessionRecord, now: Date): Promise<void> {
    return this.#run((db) => sessions.openInspectorSession(db, session, now));
  }
  findInspectorSession(idHash: string, now: Date): Promise<InspectorSessionRecord | undefined> {
    return this.#run((db) => sessions.findInspectorSession(db, idHash, now));
  }
  closeInspectorSession(idHash: string): Promise<void> {
    return this.#run((db) => sessions.closeInspectorSession(db, idHash));
  }

  proposeState(input: StateProposalInput, now: Date): Promise<ContextItem> {
    return this.#run((db) => state.proposeState(db, input, now));
  }
  promoteState(input: StatePromotionInput, now: Date): Promise<StatePromotion> {
    return this.#run((db) => state.promoteState(db, input, now));
  }
  currentState(project: string, key: string, asOf: Date): Promise<ContextItem[]> {
    return this.#run((db) => state.currentState(db, project, key, asOf));
  }
  stateHistory(project: string, key: string): Promise<ContextItem[]> {
    return this.#run((db) => state.stateHistory(db, project, key));
  }
  openContradictions(project: string): Promise<StateContradiction[]> {
    return this.#run((db) => state.openContradictions(db, project));
  }
  liveItems(project: string): Promise<ContextItem[]> {
    return this.#run((db) => liveItems(db, project));
  }
  getItem(project: string, id: string): Promise<ContextItem | undefined> {
    return this.#run((db) => findItem(db, project, id));
  }
  getItems(project: string, ids: readonly string[]): Promise<ContextItem[]> {
    return this.#run(() => this.#changed.items(project, ids));
  }

  startRun(input: StartRunInput, now: Date): Promise<RunRecord> {
    return this.#run((db) => runs.startRun(db, input, now));
  }
  finishRun(input: FinishRunInput, now: Date): Promise<{ run: RunRecord; episode: ContextItem }> {
    return this.#run((db) => runs.finishRun(db, input, now));
  }
  getRun(project: string, runId: string): Promise<RunRecord | undefined> {
    return this.#run((db) => runs.getRun(db, project, runId));
  }
  appendJournal(input: AppendJournalInput, now: Date): Promise<JournalEntry> {
    return this.#run((db) => journal.appendJournal(db, input, now));
  }
  listJournal(project: string, filter?: JournalFilter): Promise<JournalEntry[]> {
    return this.#run((db) => journal.listJournal(db, project, filter));
  }
  reviewJournalEntry(
    input: ReviewJournalInput,
    now: Date,
  ): Promise<{ review: JournalReview; created: boolean }> {
    return this.#run((db) => reviews.reviewJournalEntry(db, input, now));
  }
  getJournalEntries(project: string, ids: readonly string[]): Promise<JournalEntry[]> {
    return this.#run(() => this.#changed.entries(project, ids));
  }
  listReviewedJournal(project: string): Promise<ReviewedJournalEntry[]> {
    return this.#run((db) => reviews.listReviewedJournal(db, project));
  }
  listEpisodes(project: string, options: EpisodePageOptions): Promise<EpisodePage> {
    return this.#run((db) => listEpisodes(db, project, options));
  }

  revoke(input: RevokeInput, now: Date): Promise<Revocation> {
    return this.#run((db) => withhold.revoke(db, input, now));
  }
  listRevocations(project: string): Promise<Revocation[]> {
    return this.#run((db) => withhold.listRevocations(db, project));
  }
  liftRevocation(input: LiftInput, now: Date): Promise<Revocation> {
    return this.#run((db) => withhold.liftRevocation(db, input, now));
  }
  forget(input: ForgetInput, now: Date): Promise<{ tombstone: Tombstone; deleted: string[] }> {
    return this.#run((db) => {
      // Forgotten content must leave the file: deleted cells are zeroed, and the WAL frames that still hold the
      // old pages are checkpointed into the database and truncated (as far as readers allow).
      this.#sqlite.pragma("secure_delete = ON");
      try {
        return withhold.forget(db, input, now);
      } finally {
        this.#sqlite.pragma("secure_delete = OFF");
        this.#sqlite.pragma("wal_checkpoint(TRUNCATE)");
      }
    });
  }
  listTombstones(project: string): Promise<Tombstone[]> {
    return this.#run((db) => withhold.listTombstones(db, project));
  }
  liftTombstone(input: LiftInput, now: Date): Promise<Tombstone> {
    return this.#run((db) => withhold.liftTombstone(db, input, now));
  }
  withholdRules(project: string, asOfSeq?: number): Promise<WithholdRules> {
    return this.#run((db) => withhold.withholdRules(db, project, asOfSeq));
  }
  recordsAsOf(project: string, seq: number): Promise<RecordsAsOf> {
    return this.#run((db) => versions.recordsAsOf(db, project, seq));
  }
  recordPackets(records: readonly PacketRecordInput[]): Promise<void> {
    return this.#run(() => this.#packets.record(records));
  }
  listPackets(project: string, options: PacketPageOptions): Promise<PacketPage> {
    return this.#run((db) => packets.listPackets(db, project, options));
  }
  getPacket(project: string, packetId: string): Promise<StoredPacket | undefined> {
    return this.#run((db) => packets.getPacket(db, project, packetId));
  }

  purge(now: Date, retentionDays: number): Promise<PurgeCounts> {
    return this.#run((db) => purge(db, now, retentionDays));
  }

  changesSince(cursor: number): Promise<ChangeBatch> {
    return this.#run(() => this.#catchUp(cursor, []).batch);
  }
  catchUp(cursor: number, projects: readonly string[]): Promise<CatchUp> {
    return this.#run(() => this.#catchUp(cursor, projects));
  }

  /**
   * The changes after `cursor` with the records they name in `projects`. The idle case costs one prepared
   * statement and no table read: when the cursor is the head this connection last answered, no other connection
   * has committed since (data_version) and this process has not written the feed (`feedWriteCount`), nothing can
   * follow it. Writes that leave the feed alone, such as the audit every packet stores, do not count: counting
   * them (`total_changes()`) made every request after a `/context` read the feed again. Both are read before the
   * table, so a commit that lands in between is found by the next call.
   */
  #catchUp(cursor: number, projects: readonly string[]): CatchUp {
    const dataVersion = this.#dataVersion.get();
    const feedWrites = feed.feedWriteCount();
    const seen = this.#seen;
    if (
      seen !== undefined &&
      seen.head === cursor &&
      seen.dataVersion === dataVersion &&
      seen.feedWrites === feedWrites
    ) {
      return { batch: { head: cursor, reset: false, changes: [] }, records: new Map() };
    }
    const result = this.#readChanges(cursor, projects);
    this.#seen = { head: result.batch.head, dataVersion, feedWrites };
    return result;
  }

  /** The feed after `cursor` and the records it names in `projects`, in one read transaction. */
  #readChanges(cursor: number, projects: readonly string[]): CatchUp {
    return this.#sqlite
      .transaction((): CatchUp => {
        const batch = this.#feed.since(cursor);
        const records: CatchUp["records"] = new Map();
        for (const [project, ids] of namedRecords(batch, projects)) {
          records.set(project, {
            items: this.#changed.items(project, ids.items),
            entries: this.#changed.entries(project, ids.entries),
          });
        }
        return { batch, records };
      })
      .deferred();
  }
  readProject(project: string): Promise<ProjectSnapshot> {
    return this.#run((db) =>
      this.#sqlite
        .transaction(
          (): ProjectSnapshot => ({
            head: feed.changeHead(db),
            items: liveItems(db, project),
            journal: journal.listJournal(db, project),
            rules: withhold.withholdRules(db, project),
          }),
        )
        .deferred(),
    );
  }
  changeHead(): Promise<number> {
    return this.#run((db) => feed.changeHead(db));
  }

  /** This connection's SQLite settings, for diagnostics and tests (not part of {@link KxmStore}). */
  connectionSettings(): {
    journalMode: string;
    foreignKeys: boolean;
    busyTimeoutMs: number;
    synchronous: number;
  } {
    return {
      journalMode: String(this.#sqlite.pragma("journal_mode", { simple: true })),
      foreignKeys: this.#sqlite.pragma("foreign_keys", { simple: true }) === 1,
      busyTimeoutMs: Number(this.#sqlite.pragma("busy_timeout", { simple: true })),
      synchronous: Number(this.#sqlite.pragma("synchronous", { simple: true })),
    };
  }

  /** Closes the connection (checkpointing the WAL when it is the last one). Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#sqlite.open) this.#sqlite.close();
  }
}
