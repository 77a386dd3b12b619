import { compareCodeUnits, KxmError, type ProjectRecord } from "@kxm/contract";
import { and, count, eq, isNull } from "drizzle-orm";
import { checkoutRoot, projectId } from "../input.js";
import { agentCredentials, items, journalEntries, projects, runs } from "../schema.js";
import { isoTime } from "../time.js";
import type { RemovedProject } from "../types.js";
import { appendChange } from "./changes.js";
import { type Db, immediate, requireProject } from "./db.js";

function toProject(row: typeof projects.$inferSelect): ProjectRecord {
  return { id: row.id, checkoutRoot: row.checkoutRoot, createdAt: row.createdAt };
}

export function createProject(
  db: Db,
  input: { id: string; checkoutRoot?: string | null },
  now: Date,
): ProjectRecord {
  const project: ProjectRecord = {
    id: projectId(input.id),
    checkoutRoot: checkoutRoot(input.checkoutRoot),
    createdAt: isoTime(now, "now"),
  };
  immediate(db, () => {
    if (getProject(db, project.id) !== undefined) {
      throw new KxmError("invalid_request", `project ${project.id} already exists`);
    }
    db.insert(projects).values(project).run();
    appendChange(db, project.id, "project", [], project.createdAt);
  });
  return project;
}

export function getProject(db: Db, id: string): ProjectRecord | undefined {
  const row = db.select().from(projects).where(eq(projects.id, id)).get();
  return row === undefined ? undefined : toProject(row);
}

export function listProjects(db: Db): ProjectRecord[] {
  return db
    .select()
    .from(projects)
    .all()
    .map(toProject)
    .sort((a, b) => compareCodeUnits(a.id, b.id));
}

/** Sets the project's checkout root (an absolute path, or null for none). Unknown project: 404 `not_found`. */
export function updateProject(
  db: Db,
  id: string,
  input: { checkoutRoot: string | null },
  now?: Date,
): ProjectRecord {
  const p = projectId(id);
  const root = checkoutRoot(input.checkoutRoot);
  const at = now === undefined ? null : isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, p);
    db.update(projects).set({ checkoutRoot: root }).where(eq(projects.id, p)).run();
    appendChange(db, p, "project", [], at);
    return getProject(db, p)!;
  });
}

function rows(db: Db, table: typeof items | typeof runs | typeof journalEntries, project: string): number {
  return db.select({ n: count() }).from(table).where(eq(table.project, project)).get()?.n ?? 0;
}

/**
 * Removes the project in one transaction. Without `force` it must be empty: no stored item (state, proposals,
 * episodes), no run (and so no journal entry) and no active agent key, else 409 `project_not_empty` names what it
 * holds and nothing changes. With `force` everything of the project goes with it: items and their proposal records,
 * runs with their journal entries and reviews, and every agent key (revoked ones too). Unknown project: 404.
 */
export function removeProject(db: Db, id: string, options: { force: boolean }, now?: Date): RemovedProject {
  const p = projectId(id);
  const at = now === undefined ? null : isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, p);
    const held = {
      items: rows(db, items, p),
      runs: rows(db, runs, p),
      journalEntries: rows(db, journalEntries, p),
      activeKeys:
        db
          .select({ n: count() })
          .from(agentCredentials)
          .where(and(eq(agentCredentials.project, p), isNull(agentCredentials.revokedAt)))
          .get()?.n ?? 0,
    };
    if (!options.force && held.items + held.runs + held.activeKeys > 0) {
      throw new KxmError(
        "project_not_empty",
        `project ${p} holds ${held.items} item(s), ${held.runs} run(s) and ${held.activeKeys} active agent ` +
          "key(s); remove them first, or remove the project with force to delete them too",
      );
    }
    // Proposal records cascade with their items, journal entries and their reviews with their runs.
    const removedItems = db.delete(items).where(eq(items.project, p)).run().changes;
    const removedJournal = db.delete(journalEntries).where(eq(journalEntries.project, p)).run().changes;
    const removedRuns = db.delete(runs).where(eq(runs.project, p)).run().changes;
    const removedKeys = db.delete(agentCredentials).where(eq(agentCredentials.project, p)).run().changes;
    db.delete(projects).where(eq(projects.id, p)).run();
    appendChange(db, p, "project", [], at);
    return {
      project: p,
      items: removedItems,
      runs: removedRuns,
      journalEntries: removedJournal,
      agentKeys: removedKeys,
    };
  });
}
