import { KxmError } from "@kxm/contract";
import { eq, sql } from "drizzle-orm";
import type { PgDatabase } from "drizzle-orm/pg-core";
import type { PostgresJsQueryResultHKT } from "drizzle-orm/postgres-js";
import { projects } from "./schema.js";

/**
 * The Drizzle handle every PostgreSQL repository works through: the database, or a transaction on it (both have
 * the same query API). Inside a transaction, pass the transaction on, never the database: a statement on the
 * database would run on another connection, outside the transaction.
 */
export type Pg = PgDatabase<PostgresJsQueryResultHKT>;

/**
 * Runs `work` in one transaction that first takes the change feed's row lock (`change_head ... FOR UPDATE`), the
 * PostgreSQL form of SQLite's `BEGIN IMMEDIATE`: writers of records run one at a time from their first read, so a
 * read-then-write (a promotion, finishing a run) never acts on a value another hub is changing, and the seq each
 * change takes commits in seq order (decision 0006). READ COMMITTED on purpose: each statement after the lock sees
 * every write committed before it, where REPEATABLE READ would keep the snapshot taken while waiting. A throw rolls
 * everything back.
 */
export function writeTx<T>(db: Pg, work: (tx: Pg) => Promise<T>): Promise<T> {
  // READ COMMITTED is every store connection's default (`openPostgresStore` sets it when it connects, over any
  // server, database or role setting): naming it here would cost every write one more statement.
  return db.transaction(async (tx) => {
    await tx.execute(sql`select seq from change_head where one = 1 for update`);
    return work(tx);
  });
}

/** Runs `work` in one REPEATABLE READ, read-only transaction: every statement reads the same snapshot. */
export function snapshotTx<T>(db: Pg, work: (tx: Pg) => Promise<T>): Promise<T> {
  return db.transaction(work, { isolationLevel: "repeatable read", accessMode: "read only" });
}

/** Refuses work in a project that was never created (404 `not_found`). */
export async function requireProject(db: Pg, project: string): Promise<void> {
  const [row] = await db.select({ id: projects.id }).from(projects).where(eq(projects.id, project));
  if (row === undefined) throw new KxmError("not_found", `project ${project} does not exist`);
}

/** The PostgreSQL error under drizzle's wrapper (`DrizzleQueryError` keeps postgres.js's error as `cause`). */
export function pgCause(error: unknown): { code?: string; message: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return { code, message: current.message };
    current = current.cause;
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
