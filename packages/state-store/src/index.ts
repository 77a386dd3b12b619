// The public surface of @kxm/state-store. Named exports only; the Drizzle tables are on `@kxm/state-store/schema`.
// Importing this module opens nothing: a database is opened by calling `openStore`.
// The store's rule for open contradictions, pure: a reader holding a project's state items (the hub's pools) finds
// the same ones as `openContradictions` without a read.

/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { CopyToPostgresOptions, CopyToPostgresResult } from "./copy.js";
export { copySqliteToPostgres } from "./copy.js";
// The hash a tombstone keeps of forgotten content: the hub hashes authored facts and pool items with the same rule.
export { contentSha256 } from "./domain/content.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { InspectorSessionRecord } from "./domain/sessions.js";
export { findContradictions } from "./domain/state.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { OpenStoreOptions } from "./open.js";
export { openStore } from "./open.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { OpenPostgresStoreOptions } from "./postgres/open.js";
export { openPostgresStore } from "./postgres/open.js";
export { parseDatabaseUrl } from "./postgres/url.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type {
  AgentIdentity,
  AppendJournalInput,
  CatchUp,
  ChangeBatch,
  ChangeKind,
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
  RevocationTarget,
  RevokeInput,
  StartRunInput,
  StateContradiction,
  StatePromotion,
  StatePromotionInput,
  StateProposalInput,
  StoreChange,
  TombstoneKind,
  WithholdRules,
} from "./types.js";

/** How long superseded state, closed proposals and terminal runs are kept by default (docs/reference/behaviour.md section 9 point 4). */
export const DEFAULT_RETENTION_DAYS = 90;
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type {
  BackupResult,
  ChecksumCheck,
  MigrationLevel,
  MigrationState,
  RestoreResult,
  StoreCheck,
  StoreProblem,
} from "./maintenance.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { BackupOptions } from "./sqlite/backup.js";
// SQLite-only maintenance: a PostgreSQL store has its own tools (pg_dump, pg_restore) and does not offer these.
export { backupSqliteStore } from "./sqlite/backup.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { CheckOptions } from "./sqlite/check.js";
export { checkSqliteStore } from "./sqlite/check.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { RestoreOptions } from "./sqlite/restore.js";
export { restoreSqliteStore } from "./sqlite/restore.js";
