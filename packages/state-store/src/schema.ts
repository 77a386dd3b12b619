// The Drizzle table definitions, and nothing else: importing this module opens no database. drizzle-kit reads it
// to generate the migrations under `drizzle/` (`pnpm --filter @kxm/state-store run generate`).
//
// Times are ISO 8601 strings from `Date.prototype.toISOString()` (always `YYYY-MM-DDTHH:mm:ss.sssZ`), so they
// compare correctly as text in SQLite and PostgreSQL alike. Only type imports from @kxm/contract, so drizzle-kit
// loads this file without resolving workspace packages.
import type { ContextItem, ItemKind, ItemStatus, JournalCategory, JournalEntry } from "@kxm/contract";
import { sql } from "drizzle-orm";
import {
  check,
  foreignKey,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { ChangeKind, RevocationTarget, TombstoneKind } from "./types.js";

/** The statuses a workflow run goes through; every status but `running` is terminal. */
export type RunStatus = "running" | "succeeded" | "failed" | "cancelled";

/** Registered projects, each with the checkout its authored memory and skills are read from. */
export const projects = sqliteTable("projects", {
  id: text("id").primaryKey(),
  checkoutRoot: text("checkout_root"),
  createdAt: text("created_at").notNull(),
});

/**
 * Agent keys, stored as the hex SHA-256 of the key, never the key. At most one non-revoked key per agent id and
 * project (a partial unique index); revoked rows stay as a record.
 */
export const agentCredentials = sqliteTable(
  "agent_credentials",
  {
    keyHash: text("key_hash").primaryKey(),
    project: text("project")
      .notNull()
      .references(() => projects.id),
    agentId: text("agent_id").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    uniqueIndex("agent_credentials_active_agent_idx").on(t.project, t.agentId).where(sql`revoked_at is null`),
  ],
);

/**
 * Named operator credentials, hub-wide (not per project), stored as the hex SHA-256 of the token, never the token.
 * At most one non-revoked token per name (a partial unique index); revoked rows stay as a record.
 */
export const operatorCredentials = sqliteTable(
  "operator_credentials",
  {
    keyHash: text("key_hash").primaryKey(),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("operator_credentials_active_name_idx").on(t.name).where(sql`revoked_at is null`)],
);

/**
 * The inspector's sign-in sessions, shared by every hub process on the database: only the SHA-256 of a session's
 * id is kept (the id is the browser's cookie). An admin session carries a fingerprint of the admin token it signed
 * in with, an operator's session the operator's name and token date, so that a changed credential ends it.
 */
export const inspectorSessions = sqliteTable(
  "inspector_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userKind: text("user_kind").$type<"admin" | "operator">().notNull(),
    operator: text("operator"),
    operatorCreatedAt: text("operator_created_at"),
    adminFingerprint: text("admin_fingerprint"),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("inspector_sessions_expires_idx").on(t.expiresAt),
    check("inspector_sessions_user_kind_check", sql`user_kind in ('admin', 'operator')`),
  ],
);

/** Workflow runs. A run is terminal once `finished_at` is set. */
export const runs = sqliteTable(
  "runs",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id),
    id: text("id").notNull(),
    workflow: text("workflow").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at"),
    failingStep: text("failing_step"),
    lessons: text("lessons", { mode: "json" }).$type<string[]>(),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.id] }),
    index("runs_finished_idx").on(t.status, t.finishedAt),
    check("runs_status_check", sql`status in ('running', 'succeeded', 'failed', 'cancelled')`),
  ],
);

/**
 * Every stored context item: temporal state (proposals, current and superseded values) and episodes. The indexed
 * columns repeat fields of `body`, which holds the whole item exactly as `parseContextItem` returned it.
 */
export const items = sqliteTable(
  "items",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id),
    id: text("id").notNull(),
    kind: text("kind").$type<ItemKind>().notNull(),
    status: text("status").$type<ItemStatus>(),
    stateKey: text("state_key"),
    validFrom: text("valid_from"),
    validUntil: text("valid_until"),
    createdAt: text("created_at").notNull(),
    /** The run an episode item records; purging the run removes its episode. */
    runId: text("run_id"),
    body: text("body", { mode: "json" }).$type<ContextItem>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.id] }),
    foreignKey({ columns: [t.project, t.runId], foreignColumns: [runs.project, runs.id] }).onDelete(
      "cascade",
    ),
    index("items_state_key_idx").on(t.project, t.stateKey, t.status),
    index("items_kind_idx").on(t.project, t.kind, t.createdAt),
    index("items_retention_idx").on(t.status, t.validUntil),
    index("items_run_idx").on(t.project, t.runId),
  ],
);

/**
 * The review record of each state proposal: who proposed it and, once consumed, who promoted it into which item.
 * The proposal itself is the `items` row with the same id (status `proposed`, then `rejected`).
 */
export const stateProposals = sqliteTable(
  "state_proposals",
  {
    project: text("project").notNull(),
    itemId: text("item_id").notNull(),
    proposedBy: text("proposed_by").notNull(),
    promotedBy: text("promoted_by"),
    promotedItemId: text("promoted_item_id"),
    closedAt: text("closed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.itemId] }),
    foreignKey({ columns: [t.project, t.itemId], foreignColumns: [items.project, items.id] }).onDelete(
      "cascade",
    ),
  ],
);

/** Journal entries of workflow runs; `body` holds the whole entry as returned to the caller. */
export const journalEntries = sqliteTable(
  "journal_entries",
  {
    id: text("id").primaryKey(),
    project: text("project").notNull(),
    runId: text("run_id").notNull(),
    category: text("category").$type<JournalCategory>().notNull(),
    stage: text("stage"),
    createdAt: text("created_at").notNull(),
    body: text("body", { mode: "json" }).$type<JournalEntry>().notNull(),
  },
  (t) => [
    foreignKey({ columns: [t.project, t.runId], foreignColumns: [runs.project, runs.id] }).onDelete(
      "cascade",
    ),
    index("journal_project_created_idx").on(t.project, t.createdAt, t.id),
    index("journal_run_idx").on(t.project, t.runId, t.createdAt),
  ],
);

/**
 * The operator's review of a journal entry: who marked it reviewed, when, and on what evidence. Only an entry of a
 * finished run can be reviewed, and an entry is reviewed once (the first review is kept). The wiki compiles only
 * reviewed entries. Purging the entry (with its run) removes its review.
 */
export const journalReviews = sqliteTable(
  "journal_reviews",
  {
    entryId: text("entry_id")
      .primaryKey()
      .references(() => journalEntries.id, { onDelete: "cascade" }),
    project: text("project").notNull(),
    reviewedBy: text("reviewed_by").notNull(),
    reviewedAt: text("reviewed_at").notNull(),
    evidenceRefs: text("evidence_refs", { mode: "json" }).$type<string[]>(),
  },
  (t) => [index("journal_reviews_project_idx").on(t.project, t.reviewedAt)],
);

/**
 * The change feed: one row per write that can change what a pool, a packet, recall or the wiki records show,
 * appended in the write's own transaction. `seq` only grows (AUTOINCREMENT never reuses a number, even after
 * retention deletes rows), and SQLite's single writer makes commit order equal `seq` order, so a reader that has
 * seen every change up to `seq` N can ask for the ones after it. `ids` names the records touched (item, journal
 * entry or run ids; empty for a project or purge change, which tells a reader to rebuild the project). `at` is
 * the write's time, which retention prunes by; null for a write that takes no time.
 */
export const changes = sqliteTable(
  "changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    project: text("project").notNull(),
    kind: text("kind").$type<ChangeKind>().notNull(),
    ids: text("ids", { mode: "json" }).$type<string[]>().notNull(),
    at: text("at"),
  },
  (t) => [
    index("changes_at_idx").on(t.at),
    check("changes_kind_check", sql`kind in ('items', 'journal', 'review', 'run', 'project', 'purge')`),
  ],
);

/**
 * Record versions (decision 0016): every item and journal entry as it stood after each change that named it, so
 * a packet's pool can be rebuilt as of its `change_seq`. Written with the change row, in the same transaction.
 * `body` is the row's JSON as stored, NULL when the record was deleted or forgotten (`forgotten` set: forgetting
 * keeps no content, only the tombstone's who/when/why/hash). Retention prunes versions no stored packet needs.
 */
export const recordVersions = sqliteTable(
  "record_versions",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    kind: text("kind").$type<"item" | "entry">().notNull(),
    recordId: text("record_id").notNull(),
    body: text("body"),
    forgotten: integer("forgotten", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.kind, t.recordId, t.seq] }),
    index("record_versions_seq_idx").on(t.project, t.seq),
    check("record_versions_kind_check", sql`kind in ('item', 'entry')`),
  ],
);

/**
 * The agent that contributed each state item (decision 0017): a proposal and the value promoted from it. Written at
 * propose and promote; unlike `state_proposals` it does not go with the proposal, so an agent's revocation still
 * finds a promoted value after retention purged its consumed proposal. Retention deletes a row once neither the item
 * nor any version of it is left.
 */
export const itemContributors = sqliteTable(
  "item_contributors",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    agent: text("agent").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.itemId] }),
    index("item_contributors_agent_idx").on(t.project, t.agent),
  ],
);

/**
 * Per project, the first change seq from which its pool can be rebuilt from {@link recordVersions}: retention
 * raises it when it prunes versions. A project without a row has floor 0.
 */
export const historyFloors = sqliteTable("history_floors", {
  project: text("project")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  floor: integer("floor").notNull(),
});

/**
 * Revocations (decision 0017): an operator's withdrawal of an evidence reference, a source reference or prefix, an
 * item or an agent from every packet and recall of the project. Lifting sets `lifted_*`; the row stays as a record.
 * Retention never deletes a revocation.
 */
export const revocations = sqliteTable(
  "revocations",
  {
    id: text("id").primaryKey(),
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    target: text("target").$type<RevocationTarget>().notNull(),
    value: text("value").notNull(),
    reason: text("reason").notNull(),
    revokedBy: text("revoked_by").notNull(),
    revokedAt: text("revoked_at").notNull(),
    liftedBy: text("lifted_by"),
    liftedAt: text("lifted_at"),
    liftReason: text("lift_reason"),
    /** The change-feed seq of the revocation's own change: a pool caught up with it applies the rule. */
    createdSeq: integer("created_seq").notNull().default(0),
    /** The seq of the lift's change; null while active. */
    liftedSeq: integer("lifted_seq"),
  },
  (t) => [
    index("revocations_project_idx").on(t.project, t.revokedAt, t.id),
    check(
      "revocations_target_check",
      sql`target in ('evidence', 'source', 'source_prefix', 'item', 'agent')`,
    ),
  ],
);

/**
 * Tombstones (decision 0017): a forgotten item's id, who forgot it, when and why, and the SHA-256 of its content
 * (the stored summary), never the content. While a tombstone is active (not lifted) a write of the same content is
 * refused and an authored fact or skill of that id or content is withheld. Retention never deletes a tombstone.
 */
export const tombstones = sqliteTable(
  "tombstones",
  {
    id: text("id").primaryKey(),
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    kind: text("kind").$type<TombstoneKind>().notNull(),
    contentSha256: text("content_sha256").notNull(),
    reason: text("reason").notNull(),
    forgottenBy: text("forgotten_by").notNull(),
    forgottenAt: text("forgotten_at").notNull(),
    liftedBy: text("lifted_by"),
    liftedAt: text("lifted_at"),
    liftReason: text("lift_reason"),
    /** The change-feed seq of the forgetting's own change (see {@link revocations}). */
    createdSeq: integer("created_seq").notNull().default(0),
    /** The seq of the lift's change; null while active. */
    liftedSeq: integer("lifted_seq"),
  },
  (t) => [
    index("tombstones_project_idx").on(t.project, t.forgottenAt, t.id),
    index("tombstones_active_hash_idx").on(t.project, t.contentSha256).where(sql`lifted_at is null`),
    check("tombstones_kind_check", sql`kind in ('item', 'journal', 'authored')`),
  ],
);

/**
 * The audit of every packet a hub served, one row per project and packet id (a content hash of the packet's
 * inputs, so serving the same packet again only moves `last_served_at` and counts it). Never the task text or an
 * item's body: `audit` is the packet's audit with the task replaced by its length (decision 0016). Retention
 * deletes a row not served for the retention period; removing the project deletes its rows.
 */
export const packetAudits = sqliteTable(
  "packet_audits",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    packetId: text("packet_id").notNull(),
    runId: text("run_id"),
    rankerVersion: text("ranker_version").notNull(),
    requestSha256: text("request_sha256").notNull(),
    /** The change seq the serving pool's records were exact for at the first assembly. */
    changeSeq: integer("change_seq").notNull(),
    firstServedAt: text("first_served_at").notNull(),
    lastServedAt: text("last_served_at").notNull(),
    timesServed: integer("times_served").notNull(),
    /** The ids each packet section held. */
    sections: text("sections", { mode: "json" }).$type<Record<string, string[]>>().notNull(),
    audit: text("audit", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The assembly's inputs besides the request and the records (decision 0016); null for rows older than replay. */
    inputs: text("inputs", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.packetId] }),
    index("packet_audits_served_idx").on(t.project, t.lastServedAt, t.packetId),
    index("packet_audits_run_idx").on(t.project, t.runId, t.lastServedAt, t.packetId),
    index("packet_audits_retention_idx").on(t.lastServedAt),
  ],
);
