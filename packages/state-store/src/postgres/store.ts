import type {
  AgentKeyRecord,
  ContextItem,
  JournalEntry,
  JournalReview,
  OperatorRecord,
  ProjectRecord,
  ReviewedJournalEntry,
  Revocation,
  RunRecord,
  StoredPacket,
  Tombstone,
} from "@kxm/contract";
import { KxmError } from "@kxm/contract";
import type { Sql } from "postgres";
import type { InspectorSessionRecord } from "../domain/sessions.js";
import type {
  AgentIdentity,
  AppendJournalInput,
  CatchUp,
  ChangeBatch,
  ChangeListener,
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
import { catchUp } from "./catch-up.js";
import * as feed from "./changes.js";
import * as credentials from "./credentials.js";
import { type Pg, snapshotTx } from "./db.js";
import { listEpisodes } from "./episodes.js";
import * as items from "./items.js";
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
 * The PostgreSQL implementation of {@link KxmStore}: the same answers as the SQLite store, through a postgres.js
 * pool. Several hub processes may share one database; the change feed keeps them coherent (decision 0006).
 */
export class PostgresKxmStore implements KxmStore {
  /** The server and database, without the password (`postgres://user@host:port/db`). */
  readonly path: string;
  readonly #db: Pg;
  readonly #client: Sql;
  #closed = false;

  constructor(path: string, db: Pg, client: Sql) {
    this.path = path;
    this.#db = db;
    this.#client = client;
  }

  /** Runs `work` on the open pool; after `close()` every call rejects with `internal_error`. */
  async #run<T>(work: (db: Pg) => Promise<T>): Promise<T> {
    if (this.#closed) throw new KxmError("internal_error", `the KXM database ${this.path} is closed`);
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
  updateProject(id: string, input: { checkoutRoot: string | null }, now?: Date): Promise<ProjectRecord> {
    return this.#run((db) => projects.updateProject(db, id, input, now));
  }
  removeProject(id: string, options: { force: boolean }, now?: Date): Promise<RemovedProject> {
    return this.#run((db) => projects.removeProject(db, id, options, now));
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
    return this.#run((db) => items.liveItems(db, project));
  }
  getItem(project: string, id: string): Promise<ContextItem | undefined> {
    return this.#run((db) => items.findItem(db, project, id));
  }
  getItems(project: string, ids: readonly string[]): Promise<ContextItem[]> {
    return this.#run((db) => items.findItems(db, project, ids));
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
    return this.#run((db) => journal.findEntries(db, project, ids));
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
    return this.#run((db) => withhold.forget(db, input, now));
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
    return this.#run((db) => packets.recordPackets(db, records));
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

  /** The changes after `cursor`: one indexed read in one snapshot (PostgreSQL has no `data_version`). */
  changesSince(cursor: number): Promise<ChangeBatch> {
    return this.#run((db) => feed.changesSince(db, cursor));
  }
  catchUp(cursor: number, projects: readonly string[]): Promise<CatchUp> {
    return this.#run((db) => catchUp(db, cursor, projects));
  }
  readProject(project: string): Promise<ProjectSnapshot> {
    return this.#run((db) =>
      snapshotTx(db, async (tx) => ({
        head: await feed.changeHead(tx),
        items: await items.liveItems(tx, project),
        journal: await journal.listJournal(tx, project),
        rules: await withhold.withholdRules(tx, project),
      })),
    );
  }
  changeHead(): Promise<number> {
    return this.#run((db) => feed.changeHead(db));
  }

  /**
   * Listens on `kxm_changes` over a connection of its own (postgres.js keeps it open and reconnects it, calling
   * `connected` each time). A payload that is not a seq is ignored: only KXM's writers notify on the channel.
   */
  watchChanges(listener: ChangeListener): Promise<() => Promise<void>> {
    return this.#run(async () => {
      const subscription = await this.#client.listen(
        feed.CHANGES_CHANNEL,
        (payload) => {
          const seq = Number(payload);
          if (Number.isSafeInteger(seq) && seq > 0) listener.changed(seq);
        },
        () => listener.connected(),
      );
      return () => subscription.unlisten();
    });
  }

  /** Ends the pool's connections, letting running queries finish. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.end({ timeout: 5 });
  }
}
