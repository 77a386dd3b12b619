import { KxmError } from "@kxm/contract";
import { eq } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { projects } from "../schema.js";

/** The Drizzle handle every SQLite repository works through. */
export type Db = BetterSQLite3Database;

/**
 * Runs `work` in one `BEGIN IMMEDIATE` transaction: the write lock is taken before the first read, so a
 * read-then-write (promotion, finishing a run) never acts on a value another connection is changing. `work` must
 * be synchronous; a throw rolls everything back.
 */
export function immediate<T>(db: Db, work: () => T): T {
  return db.transaction(() => work(), { behavior: "immediate" });
}

/** Refuses work in a project that was never created (404 `not_found`). */
export function requireProject(db: Db, project: string): void {
  const row = db.select({ id: projects.id }).from(projects).where(eq(projects.id, project)).get();
  if (row === undefined) throw new KxmError("not_found", `project ${project} does not exist`);
}
