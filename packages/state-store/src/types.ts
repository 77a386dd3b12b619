import type {
  AgentKeyRecord,
  Authority,
  Confidence,
  ContextItem,
  JournalCategory,
  JournalEntry,
  JournalReview,
  OperatorRecord,
  ProjectRecord,
  ReviewedJournalEntry,
  Revocation,
  RunRecord,
  StepManifest,
  StoredPacket,
  Tombstone,
} from "@kxm/contract";
import type { InspectorSessionRecord } from "./domain/sessions.js";

// The records the store returns are the contract's wire shapes (ProjectRecord, RunRecord, ReviewedJournalEntry,
// AgentKeyRecord, OperatorRecord), declared once there: the store keeps nothing in them the wire does not carry.

/** What removing a project deleted with it. */
export interface RemovedProject {
  project: string;
  items: number;
  runs: number;
  journalEntries: number;
  agentKeys: number;
}

/** Who a named operator token belongs to. */
export interface OperatorIdentity {
  name: string;
}

/** Who an agent key belongs to. */
export interface AgentIdentity {
  project: string;
  agentId: string;
}

/** A proposed value for a state key (docs/reference/behaviour.md section 5). */
export interface StateProposalInput {
  project: string;
  key: string;
  summary: string;
  authority: Authority;
  confidence: Confidence;
  /** 1 to 32 distinct references. */
  evidenceRefs: string[];
  supersedes?: string[];
  /** ISO 8601 date-time: the promoted value is withheld from this time on (carried through promotion). */
  expiresAt?: string;
  /** ISO 8601 date-time: the promoted value is listed as due for review from this time on. */
  reviewBy?: string;
  /** Follows the credential: an agent key proposes as `peer`, the admin token as `human`. */
  origin: "peer" | "human";
  proposedBy: string;
}

/** A promotion of a proposal into the key's current value. */
export interface StatePromotionInput {
  project: string;
  proposalId: string;
  promotedBy: string;
  /** 1 to 32 distinct references. */
  evidenceRefs: string[];
}

/** What a promotion changed: the new current item, the items it superseded and the consumed proposal. */
export interface StatePromotion {
  state: ContextItem;
  superseded: ContextItem[];
  consumed: ContextItem;
}

/** A key with competing values: more than one current item, or more than one pending proposal. */
export interface StateContradiction {
  stateKey: string;
  itemIds: string[];
}

export interface StartRunInput {
  project: string;
  workflow: string;
  /** A caller-chosen id (at most 120 characters, so `episode_<runId>` is a valid item id); else `run_<24 hex>`. */
  runId?: string;
}

export interface FinishRunInput {
  project: string;
  runId: string;
  outcome: "succeeded" | "failed" | "cancelled";
  failingStep?: string;
  lessons?: string[];
}

export interface AppendJournalInput {
  project: string;
  runId: string;
  category: JournalCategory;
  summary: string;
  stage?: string;
  evidenceRefs?: string[];
  /** A step report's manifest: the ids of what the step attempt's prompt carried. */
  manifest?: StepManifest;
}

/** An operator's review of a journal entry (the wiki compiles only reviewed entries of finished runs). */
export interface ReviewJournalInput {
  project: string;
  entryId: string;
  /** Who reviewed: the credential's actor. */
  reviewedBy: string;
  /** 0 to 64 distinct references, such as the review's pull request. */
  evidenceRefs?: string[];
}

export interface JournalFilter {
  runId?: string;
  stage?: string;
  /** Only these categories; an empty list matches nothing. */
  categories?: readonly JournalCategory[];
}

export interface EpisodePageOptions {
  runId?: string;
  /** 1 to 50. */
  limit: number;
  /** The `nextCursor` of the previous page. */
  before?: string;
}

export interface EpisodePage {
  items: ContextItem[];
  /** Present when older episodes remain. */
  nextCursor?: string;
}

/** What a change touched; see {@link StoreChange}. */
export type ChangeKind = "items" | "journal" | "review" | "run" | "project" | "purge";

/**
 * One entry of the change feed: a write that may change what a pool, a packet, recall or the wiki records show.
 * `items`, `journal`, `review` and `run` name the records written (`ids`); re-read them to apply the change.
 * `project` (created, re-pointed at another checkout, removed) and `purge` (retention deleted records) carry no
 * ids: rebuild what was derived from the project.
 */
export interface StoreChange {
  /** Positive and increasing in commit order; never reused. */
  seq: number;
  project: string;
  kind: ChangeKind;
  /** Sorted, distinct. */
  ids: string[];
}

/** What {@link KxmStore.watchChanges} calls. */
export interface ChangeListener {
  changed(seq: number): void;
  connected(): void;
}

/** The changes after a cursor (see {@link KxmStore.changesSince}). */
export interface ChangeBatch {
  /** The newest change's `seq` when read (0 for none): the cursor to pass next. */
  head: number;
  /**
   * True when the cursor cannot be continued (retention pruned changes after it, it is ahead of the head, or too
   * many changes follow it): `changes` is empty and the reader must rebuild everything it derived, then go on from
   * `head`.
   */
  reset: boolean;
  /** Oldest first; empty when nothing changed or on `reset`. */
  changes: StoreChange[];
}

/** A project's stored records, its withholding rules and the feed's head, from one snapshot (a pool's load). */
export interface ProjectSnapshot {
  /** The feed's head in the snapshot: the records are exactly those every change up to it left. */
  head: number;
  /** Every stored item, by id. */
  items: ContextItem[];
  /** Every journal entry, by createdAt then id. */
  journal: JournalEntry[];
  rules: WithholdRules;
}

/** The changes after a cursor, with the records they name in the projects asked for (see {@link KxmStore.catchUp}). */
export interface CatchUp {
  batch: ChangeBatch;
  /**
   * For each asked project that the batch's `items` and `journal` changes touch: the named records that still
   * exist, as they stood at `batch.head` (items by id, entries by createdAt then id).
   */
  records: Map<string, { items: ContextItem[]; entries: JournalEntry[] }>;
}

/** What a revocation names (decision 0017). */
export type RevocationTarget = "evidence" | "source" | "source_prefix" | "item" | "agent";

/** What a tombstone's id was: a stored item or a journal entry (both deleted), or an authored fact or skill. */
export type TombstoneKind = "item" | "journal" | "authored";

export interface RevokeInput {
  project: string;
  target: RevocationTarget;
  value: string;
  reason: string;
  /** The credential's actor. */
  revokedBy: string;
}

/** A lift of a revocation or a tombstone. */
export interface LiftInput {
  project: string;
  /** The revocation's or the tombstone's id. */
  id: string;
  reason: string;
  liftedBy: string;
}

export interface ForgetInput {
  project: string;
  /** A stored item's id, a journal entry's id (`j_…`) or its item id (`journal_j_…`), or an authored item's id. */
  itemId: string;
  reason: string;
  forgottenBy: string;
  /**
   * The summary of the authored fact or skill of that id, as the hub serves it, when the id names one: it is
   * hashed, never stored. Used only when no stored item or journal entry has the id.
   */
  authoredSummary?: string;
}

/**
 * What a project's pools withhold (decision 0017): its active revocations, its active tombstones, and the ids of
 * the items each revoked agent contributed (its state proposals and the values promoted from them).
 */
export interface WithholdRules {
  revocations: Revocation[];
  tombstones: Tombstone[];
  /** Item id to the revoked agent that contributed it. */
  agentItems: Map<string, string>;
}

/** A project's stored records as they stood at one change seq (see {@link KxmStore.recordsAsOf}). */
export interface RecordsAsOf {
  /** Every stored item, by id. */
  items: ContextItem[];
  /** Every journal entry, by createdAt then id. */
  journal: JournalEntry[];
}

export interface PurgeCounts {
  items: number;
  runs: number;
  journal: number;
  /** Stored packet audits not served within the retention period. */
  packets: number;
}

/** One packet a hub served, to record (see {@link KxmStore.recordPackets}). */
export interface PacketRecordInput {
  project: string;
  /** `pkt_` + 32 hex: the hash of the packet's inputs. */
  packetId: string;
  runId: string | null;
  rankerVersion: string;
  /** SHA-256 (hex) of the request's JSON as the audit echoed it. */
  requestSha256: string;
  /** The change seq the pool's records were exact for when it assembled the packet. */
  changeSeq: number;
  /** The assembly's other inputs, kept so the packet can be replayed (decision 0016). */
  inputs: StoredPacket["inputs"];
  /** The ids each packet section held. */
  sections: StoredPacket["sections"];
  /** The audit without the task text: `request.taskChars` in its place, no `packetId`. */
  audit: StoredPacket["audit"];
  servedAt: Date;
}

export interface PacketPageOptions {
  runId?: string;
  /** 1 to 50. */
  limit: number;
  /** The `nextCursor` of the previous page. */
  before?: string;
}

export interface PacketPage {
  packets: StoredPacket[];
  /** Present when packets served earlier remain. */
  nextCursor?: string;
}

/**
 * KXM's durable state. Every method is asynchronous so that a PostgreSQL implementation can satisfy the same
 * interface; the SQLite one does its work synchronously inside. No method reads the clock: every time comes from a
 * `now` or `asOf` argument. Expected failures reject with a `KxmError` carrying a catalogue code.
 */
export interface KxmStore {
  /** The database file (absolute). */
  readonly path: string;

  /** Registers a project. An existing id is `invalid_request`; a relative `checkoutRoot` too. */
  createProject(input: { id: string; checkoutRoot?: string | null }, now: Date): Promise<ProjectRecord>;
  getProject(id: string): Promise<ProjectRecord | undefined>;
  /** Every project, by id. */
  listProjects(): Promise<ProjectRecord[]>;

  /**
   * Creates the agent's key and returns it once: `kxm_` + 32 random bytes in base64url. Only its SHA-256 is
   * stored. An unknown project is 404 `not_found`; an agent that still holds a key is `invalid_request`.
   */
  createAgentKey(project: string, agentId: string, now: Date): Promise<{ agentId: string; key: string }>;
  /** Revokes the agent's key; false when it had none. */
  revokeAgentKey(project: string, agentId: string, now: Date): Promise<boolean>;
  /** The agents of the project holding an active key, by agent id. Unknown project: 404 `not_found`. */
  listAgentKeys(project: string): Promise<AgentKeyRecord[]>;
  /**
   * Revokes the agent's active key and creates a new one in one transaction, returned once. Unknown project, or no
   * active key: 404 `not_found`.
   */
  rotateAgentKey(project: string, agentId: string, now: Date): Promise<{ agentId: string; key: string }>;

  /**
   * Sets a project's checkout root (absolute, or null). Unknown project: 404 `not_found`. `now` only dates the
   * change-feed entry (retention prunes by it).
   */
  updateProject(id: string, input: { checkoutRoot: string | null }, now?: Date): Promise<ProjectRecord>;
  /**
   * Removes a project. Without `force`, one that holds items, runs or active agent keys is 409
   * `project_not_empty`; with it, all of them are deleted too, in one transaction. Unknown project: 404. `now`
   * only dates the change-feed entry.
   */
  removeProject(id: string, options: { force: boolean }, now?: Date): Promise<RemovedProject>;

  /**
   * Creates a named operator's token and returns it once: `kxo_` + 32 random bytes in base64url; only its SHA-256
   * is stored. A malformed name, `kxm-admin`, or a name holding an active token is `invalid_request`.
   */
  createOperator(name: string, now: Date): Promise<{ name: string; token: string }>;
  /** Revokes the operator's token; false when it had none. */
  revokeOperator(name: string, now: Date): Promise<boolean>;
  /** The operators holding an active token, by name. */
  listOperators(): Promise<OperatorRecord[]>;
  /** The token's operator, or undefined for an unknown, malformed or revoked token (compared in constant time). */
  authenticateOperator(token: string): Promise<OperatorIdentity | undefined>;
  /** The key's owner, or undefined for an unknown, malformed or revoked key. */
  authenticateAgent(key: string): Promise<AgentIdentity | undefined>;

  /**
   * Stores an inspector sign-in session (only its id's SHA-256), shared by every hub process on this database.
   * Expired sessions are dropped first and, past 1,000, the one that expires first. A malformed id hash is
   * `invalid_request`.
   */
  openInspectorSession(session: InspectorSessionRecord, now: Date): Promise<void>;
  /** The session with this id hash unless it has expired by `now`; undefined for an unknown or malformed hash. */
  findInspectorSession(idHash: string, now: Date): Promise<InspectorSessionRecord | undefined>;
  /** Ends the session with this id hash (nothing when there is none). */
  closeInspectorSession(idHash: string): Promise<void>;

  /**
   * Stores a proposal: a `state` item with status `proposed`, `validFrom` = now, source ref
   * `proposed-by:<proposedBy>`, id `state_<24 hex>`. Codes: `invalid_state_proposal` (0 or over 32 evidence refs,
   * malformed fields), 403 `context_authority_violation` (authority over the origin's ceiling),
   * `context_limits_exceeded`, 404 `not_found` (unknown project).
   */
  proposeState(input: StateProposalInput, now: Date): Promise<ContextItem>;
  /**
   * Promotes a pending proposal in one `BEGIN IMMEDIATE` transaction: every current item of the key becomes
   * `superseded` (validUntil = the promotion time), a new `current` item is minted (origin and authority kept,
   * source ref `promoted-by:<promotedBy>`, evidence and supersedes the sorted unions), and the proposal becomes
   * `rejected` (consumed). The promotion time is `now`, or 1 ms after the latest validFrom involved when `now` is
   * not later. Codes: 404 `state_proposal_not_found` (also another project's proposal), 400
   * `state_proposal_not_promotable`, 403 `state_promotion_invalid` (the author), `invalid_state_proposal` (0 or
   * over 32 evidence refs).
   */
  promoteState(input: StatePromotionInput, now: Date): Promise<StatePromotion>;
  /** Current or superseded items of the key active at `asOf` (validFrom <= asOf < validUntil), by validFrom. */
  currentState(project: string, key: string, asOf: Date): Promise<ContextItem[]>;
  /** Every retained item of the key, proposals included, by validFrom then id. */
  stateHistory(project: string, key: string): Promise<ContextItem[]>;
  /** Keys with more than one current item or more than one pending proposal, by key. */
  openContradictions(project: string): Promise<StateContradiction[]>;
  /** Every stored item of the project (state of every retained status, episodes), by id. */
  liveItems(project: string): Promise<ContextItem[]>;
  getItem(project: string, id: string): Promise<ContextItem | undefined>;
  /** The project's stored items with these ids (those that exist), by id. */
  getItems(project: string, ids: readonly string[]): Promise<ContextItem[]>;

  /** Starts a run. Unknown project: 404 `not_found`; a run id already used in the project: `invalid_request`. */
  startRun(input: StartRunInput, now: Date): Promise<RunRecord>;
  /**
   * Finishes a running run and stores its one episode (`episode_<runId>`), in one transaction. Unknown run: 404
   * `not_found`; a run that already finished: `invalid_request`.
   */
  finishRun(input: FinishRunInput, now: Date): Promise<{ run: RunRecord; episode: ContextItem }>;
  getRun(project: string, runId: string): Promise<RunRecord | undefined>;
  /**
   * Appends to a running run's journal (id `j_<24 hex>`, createdAt = now, summary redacted). Unknown run: 404
   * `not_found`; finished run: `invalid_request`; lesson or skill-candidate without evidence: 400
   * `journal_evidence_required`.
   */
  appendJournal(input: AppendJournalInput, now: Date): Promise<JournalEntry>;
  /** The project's journal entries by createdAt then id, optionally filtered by run, stage and categories. */
  listJournal(project: string, filter?: JournalFilter): Promise<JournalEntry[]>;
  /**
   * Marks a journal entry of a finished run reviewed (once: a second review answers the first, `created: false`).
   * An entry not in the project is 404 `not_found`; an entry of a running run is 409 `journal_review_invalid`.
   */
  reviewJournalEntry(
    input: ReviewJournalInput,
    now: Date,
  ): Promise<{ review: JournalReview; created: boolean }>;
  /** The project's journal entries with these ids (those that exist), by createdAt then id. */
  getJournalEntries(project: string, ids: readonly string[]): Promise<JournalEntry[]>;
  /** The project's reviewed journal entries of finished runs, with run and review, by createdAt then id. */
  listReviewedJournal(project: string): Promise<ReviewedJournalEntry[]>;
  /** The project's episodes, newest first, `limit` (1..50) at a time; pass `nextCursor` as `before`. */
  listEpisodes(project: string, options: EpisodePageOptions): Promise<EpisodePage>;

  /**
   * Revokes a target in the project (decision 0017) and appends a `project` change, so every hub on the database
   * rebuilds the project's pools. Unknown project: 404 `not_found`; a reason or value over its limit:
   * `context_limits_exceeded`.
   */
  revoke(input: RevokeInput, now: Date): Promise<Revocation>;
  /** The project's revocations, lifted ones too, by revokedAt then id. Unknown project: 404 `not_found`. */
  listRevocations(project: string): Promise<Revocation[]>;
  /**
   * Lifts an active revocation (the row stays, with who, when and why) and appends a `project` change. Unknown
   * project or revocation: 404 `not_found`; one already lifted: `invalid_request`.
   */
  liftRevocation(input: LiftInput, now: Date): Promise<Revocation>;
  /**
   * Forgets an id in one transaction: the stored item or journal entry it names, and every stored item and journal
   * entry of the project with the same content (the summary), are deleted (a proposal's review record and an
   * entry's review go with them), and a tombstone keeps the id, who, when, why and the SHA-256 of the content, never
   * the content; for an authored fact or skill `authoredSummary` is hashed. Deleted rows are overwritten
   * (`secure_delete`) and the WAL is checkpointed, so the content leaves the files. Appends a `project` change. An
   * id neither stored nor authored: 404 `not_found`. Answers the tombstone and the ids deleted.
   */
  forget(input: ForgetInput, now: Date): Promise<{ tombstone: Tombstone; deleted: string[] }>;
  /** The project's tombstones, lifted ones too, by forgottenAt then id. Unknown project: 404 `not_found`. */
  listTombstones(project: string): Promise<Tombstone[]>;
  /** Lifts an active tombstone, as {@link liftRevocation} does a revocation. */
  liftTombstone(input: LiftInput, now: Date): Promise<Tombstone>;
  /**
   * The project's active revocations and tombstones, with the items each revoked agent contributed; with `asOfSeq`,
   * those active once every change up to that seq was applied (created at or before it, not lifted by then).
   */
  withholdRules(project: string, asOfSeq?: number): Promise<WithholdRules>;
  /**
   * The project's stored items and journal entries as they stood at change `seq` (decision 0016), from their
   * versions. Below the project's history floor (retention pruned it) or past the head: 410
   * `replay_history_purged`; a record forgotten since: 410 `replay_history_forgotten`, naming it.
   */
  recordsAsOf(project: string, seq: number): Promise<RecordsAsOf>;

  /**
   * Records packets served, in one transaction (a hub writes one event-loop turn's packets at once): a new
   * (project, packet id) gets a row; a known one gets the later last-served time and one more serving, and keeps
   * its first audit. An unknown project rejects the whole batch.
   */
  recordPackets(records: readonly PacketRecordInput[]): Promise<void>;
  /** The project's stored packets, last served first, `limit` (1..50) at a time; pass `nextCursor` as `before`. */
  listPackets(project: string, options: PacketPageOptions): Promise<PacketPage>;
  /** One stored packet of the project, or undefined. */
  getPacket(project: string, packetId: string): Promise<StoredPacket | undefined>;

  /**
   * Deletes superseded state and consumed proposals whose validUntil is more than `retentionDays` before `now`,
   * terminal runs that finished before then with their journal entries and episode, and stored packets last served
   * before then. One transaction.
   */
  purge(now: Date, retentionDays: number): Promise<PurgeCounts>;

  /**
   * The change feed (decision 0006). Every write that can change what a pool, a packet, recall or the wiki records
   * show appends a {@link StoreChange} in its own transaction; this answers the ones after `cursor` (a previous
   * `head`, or 0), oldest first, in one snapshot. Cheap when nothing changed: the SQLite store answers from
   * `PRAGMA data_version` and its own process's count of feed writes without reading the table. Retention prunes old
   * changes with the records (never the newest); a cursor before a pruned one answers `reset`.
   */
  changesSince(cursor: number): Promise<ChangeBatch>;
  /**
   * {@link changesSince}, and in the same snapshot the records its `items` and `journal` changes name in
   * `projects` (the ones a reader holds): applying them leaves the reader exactly at `batch.head`, even while other
   * processes write (decision 0006).
   */
  catchUp(cursor: number, projects: readonly string[]): Promise<CatchUp>;
  /**
   * A project's items, journal and withholding rules with the feed's head, in one snapshot: a pool loaded from it
   * is exact for that head, whatever other processes write meanwhile.
   */
  readProject(project: string): Promise<ProjectSnapshot>;
  /** The newest change's `seq` (0 for none): where a reader that has just loaded everything starts. */
  changeHead(): Promise<number>;
  /**
   * Wakes a reader when another process commits a change, so it catches up before its next request needs it. Only
   * where the engine can notify (PostgreSQL: `LISTEN kxm_changes`); a reader must still ask {@link changesSince}
   * before every read, since a notification can be late or lost. `changed` gets the committed change's seq;
   * `connected` is called each time the listening connection (re)connects, when notifications sent while it was
   * down are lost, so the reader catches up then. Resolves, once listening, to a function that stops it.
   */
  watchChanges?(listener: ChangeListener): Promise<() => Promise<void>>;
  /** Closes the database. Later calls reject with `internal_error`. */
  close(): Promise<void>;
}
