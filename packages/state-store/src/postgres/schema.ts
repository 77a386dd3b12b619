// The PostgreSQL twin of `../schema.ts`: the same tables, columns, keys and indexes, so that both engines hold the
// same rows and the repositories above them answer the same bytes. drizzle-kit reads this file to generate the
// migrations under `drizzle-pg/` (`pnpm --filter @kxm/state-store run generate:pg`). Importing it opens nothing.
//
// Two choices keep PostgreSQL's answers equal to SQLite's:
// - every text column is `COLLATE "C"`, so comparisons and ORDER BY go by UTF-8 bytes (code points), as SQLite's
//   BINARY collation does, whatever collation the database was created with;
// - JSON is kept as text, exactly the string `JSON.stringify` made (the `json`/`jsonb` types would reorder keys or
//   be parsed twice on the way through postgres.js), as SQLite keeps it.
import type { ContextItem, ItemKind, ItemStatus, JournalCategory, JournalEntry } from "@kxm/contract";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { RunStatus } from "../schema.js";
import type { ChangeKind, RevocationTarget, TombstoneKind } from "../types.js";

/** Text compared byte by byte (`COLLATE "C"`), as SQLite compares it. */
const text = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});

/** A JSON value kept as the text `JSON.stringify` made, parsed on the way out. */
function json<T>(name: string) {
  return customType<{ data: T; driverData: string }>({
    dataType: () => "text",
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);
}

/** A change-feed seq: a bigint the driver hands back as a JavaScript number (seqs stay far below 2^53). */
function seq(name: string) {
  return bigint(name, { mode: "number" });
}

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  checkoutRoot: text("checkout_root"),
  createdAt: text("created_at").notNull(),
});

export const agentCredentials = pgTable(
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

export const operatorCredentials = pgTable(
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
 * The inspector's sign-in sessions: see `../schema.ts`.
 */
export const inspectorSessions = pgTable(
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

export const runs = pgTable(
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
    lessons: json<string[]>("lessons"),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.id] }),
    index("runs_finished_idx").on(t.status, t.finishedAt),
    check("runs_status_check", sql`status in ('running', 'succeeded', 'failed', 'cancelled')`),
  ],
);

export const items = pgTable(
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
    runId: text("run_id"),
    body: json<ContextItem>("body").notNull(),
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

export const stateProposals = pgTable(
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

export const journalEntries = pgTable(
  "journal_entries",
  {
    id: text("id").primaryKey(),
    project: text("project").notNull(),
    runId: text("run_id").notNull(),
    category: text("category").$type<JournalCategory>().notNull(),
    stage: text("stage"),
    createdAt: text("created_at").notNull(),
    body: json<JournalEntry>("body").notNull(),
  },
  (t) => [
    foreignKey({ columns: [t.project, t.runId], foreignColumns: [runs.project, runs.id] }).onDelete(
      "cascade",
    ),
    index("journal_project_created_idx").on(t.project, t.createdAt, t.id),
    index("journal_run_idx").on(t.project, t.runId, t.createdAt),
  ],
);

export const journalReviews = pgTable(
  "journal_reviews",
  {
    entryId: text("entry_id")
      .primaryKey()
      .references(() => journalEntries.id, { onDelete: "cascade" }),
    project: text("project").notNull(),
    reviewedBy: text("reviewed_by").notNull(),
    reviewedAt: text("reviewed_at").notNull(),
    evidenceRefs: json<string[]>("evidence_refs"),
  },
  (t) => [index("journal_reviews_project_idx").on(t.project, t.reviewedAt)],
);

/**
 * The change feed. Unlike SQLite, PostgreSQL hands out sequence values at insert, not at commit, so `seq` is not a
 * serial: every writer takes the next number from {@link changeHead} under its row lock, which makes commit order
 * equal seq order (decision 0006).
 */
export const changes = pgTable(
  "changes",
  {
    seq: seq("seq").primaryKey(),
    project: text("project").notNull(),
    kind: text("kind").$type<ChangeKind>().notNull(),
    ids: json<string[]>("ids").notNull(),
    at: text("at"),
  },
  (t) => [
    index("changes_at_idx").on(t.at),
    check("changes_kind_check", sql`kind in ('items', 'journal', 'review', 'run', 'project', 'purge')`),
  ],
);

/** One row: the newest seq handed out. Its row lock serializes the writers of changes until they commit. */
export const changeHead = pgTable(
  "change_head",
  {
    one: integer("one").primaryKey().default(1),
    seq: seq("seq").notNull().default(0),
  },
  () => [check("change_head_one_check", sql`one = 1`)],
);

export const recordVersions = pgTable(
  "record_versions",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    seq: seq("seq").notNull(),
    kind: text("kind").$type<"item" | "entry">().notNull(),
    recordId: text("record_id").notNull(),
    body: text("body"),
    forgotten: boolean("forgotten").notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.kind, t.recordId, t.seq] }),
    index("record_versions_seq_idx").on(t.project, t.seq),
    check("record_versions_kind_check", sql`kind in ('item', 'entry')`),
  ],
);

export const itemContributors = pgTable(
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

export const historyFloors = pgTable("history_floors", {
  project: text("project")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  floor: seq("floor").notNull(),
});

export const revocations = pgTable(
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
    createdSeq: seq("created_seq").notNull().default(0),
    liftedSeq: seq("lifted_seq"),
  },
  (t) => [
    index("revocations_project_idx").on(t.project, t.revokedAt, t.id),
    check(
      "revocations_target_check",
      sql`target in ('evidence', 'source', 'source_prefix', 'item', 'agent')`,
    ),
  ],
);

export const tombstones = pgTable(
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
    createdSeq: seq("created_seq").notNull().default(0),
    liftedSeq: seq("lifted_seq"),
  },
  (t) => [
    index("tombstones_project_idx").on(t.project, t.forgottenAt, t.id),
    index("tombstones_active_hash_idx").on(t.project, t.contentSha256).where(sql`lifted_at is null`),
    check("tombstones_kind_check", sql`kind in ('item', 'journal', 'authored')`),
  ],
);

export const packetAudits = pgTable(
  "packet_audits",
  {
    project: text("project")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    packetId: text("packet_id").notNull(),
    runId: text("run_id"),
    rankerVersion: text("ranker_version").notNull(),
    requestSha256: text("request_sha256").notNull(),
    changeSeq: seq("change_seq").notNull(),
    firstServedAt: text("first_served_at").notNull(),
    lastServedAt: text("last_served_at").notNull(),
    timesServed: integer("times_served").notNull(),
    sections: json<Record<string, string[]>>("sections").notNull(),
    audit: json<Record<string, unknown>>("audit").notNull(),
    inputs: json<Record<string, unknown>>("inputs"),
  },
  (t) => [
    primaryKey({ columns: [t.project, t.packetId] }),
    index("packet_audits_served_idx").on(t.project, t.lastServedAt, t.packetId),
    index("packet_audits_run_idx").on(t.project, t.runId, t.lastServedAt, t.packetId),
    index("packet_audits_retention_idx").on(t.lastServedAt),
  ],
);
