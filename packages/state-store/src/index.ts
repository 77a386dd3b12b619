// The public surface of @kxm/state-store. Named exports only; the Drizzle tables are on `@kxm/state-store/schema`.
// Importing this module opens nothing: a database is opened by calling `openStore`.
// The store's rule for open contradictions, pure: a reader holding a project's state items (the hub's pools) finds
// the same ones as `openContradictions` without a read.
export { findContradictions } from "./domain/state.js";
export { type OpenStoreOptions, openStore } from "./open.js";
export type {
  AgentIdentity,
  AppendJournalInput,
  ChangeBatch,
  ChangeKind,
  EpisodePage,
  EpisodePageOptions,
  FinishRunInput,
  JournalFilter,
  KxmStore,
  OperatorIdentity,
  PurgeCounts,
  RemovedProject,
  ReviewJournalInput,
  StartRunInput,
  StateContradiction,
  StatePromotion,
  StatePromotionInput,
  StateProposalInput,
  StoreChange,
} from "./types.js";

/** How long superseded state, closed proposals and terminal runs are kept by default (behaviour.md 9.4). */
export const DEFAULT_RETENTION_DAYS = 90;
export type {
  BackupResult,
  ChecksumCheck,
  MigrationLevel,
  MigrationState,
  RestoreResult,
  StoreCheck,
  StoreProblem,
} from "./maintenance.js";
// SQLite-only maintenance: a PostgreSQL store has its own tools (pg_dump, pg_restore) and does not offer these.
export { type BackupOptions, backupSqliteStore } from "./sqlite/backup.js";
export { type CheckOptions, checkSqliteStore } from "./sqlite/check.js";
export { type RestoreOptions, restoreSqliteStore } from "./sqlite/restore.js";
