// Projects on PostgreSQL: the same answers and errors as `../sqlite/projects.ts`.
import { compareCodeUnits, KxmError, type ProjectRecord } from "@kxm/contract";
import { and, count, eq, isNull } from "drizzle-orm";
import { checkoutRoot, projectId } from "../input.js";
import { isoTime } from "../time.js";
import type { RemovedProject } from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, requireProject, writeTx } from "./db.js";
import { agentCredentials, items, journalEntries, projects, runs } from "./schema.js";

function toProject(row: typeof projects.$inferSelect): ProjectRecord {
  return { id: row.id, checkoutRoot: row.checkoutRoot, createdAt: row.createdAt };
}

/** Creates a project; one that already exists is `invalid_request`. */
export async function createProject(
  db: Pg,
  input: { id: string; checkoutRoot?: string | null },
  now: Date,
): Promise<ProjectRecord> {
  const project: ProjectRecord = {
    id: projectId(input.id),
    checkoutRoot: checkoutRoot(input.checkoutRoot),
    createdAt: isoTime(now, "now"),
  };
  await writeTx(db, async (tx) => {
    if ((await getProject(tx, project.id)) !== undefined) {
      throw new KxmError("invalid_request", `project ${project.id} already exists`);
    }
    await tx.insert(projects).values(project);
    await appendChange(tx, project.id, "project", [], project.createdAt);
  });
  return project;
}

/** The project, or undefined. */
export async function getProject(db: Pg, id: string): Promise<ProjectRecord | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, id));
  return row === undefined ? undefined : toProject(row);
}

/** Every project, by id (code-unit order). */
export async function listProjects(db: Pg): Promise<ProjectRecord[]> {
  const rows = await db.select().from(projects);
  return rows.map(toProject).sort((a, b) => compareCodeUnits(a.id, b.id));
}

/** Sets the project's checkout root (an absolute path, or null for none). Unknown project: 404 `not_found`. */
export async function updateProject(
  db: Pg,
  id: string,
  input: { checkoutRoot: string | null },
  now?: Date,
): Promise<ProjectRecord> {
  const p = projectId(id);
  const root = checkoutRoot(input.checkoutRoot);
  const at = now === undefined ? null : isoTime(now, "now");
  return writeTx(db, async (tx) => {
    await requireProject(tx, p);
    await tx.update(projects).set({ checkoutRoot: root }).where(eq(projects.id, p));
    await appendChange(tx, p, "project", [], at);
    return (await getProject(tx, p))!;
  });
}

async function rows(
  tx: Pg,
  table: typeof items | typeof runs | typeof journalEntries,
  project: string,
): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(table).where(eq(table.project, project));
  return row?.n ?? 0;
}

/**
 * Removes the project in one transaction, as the SQLite store's `removeProject`: without `force` it must hold no
 * item, run or active agent key (409 `project_not_empty`); with `force` everything of the project goes with it.
 * Unknown project: 404.
 */
export async function removeProject(
  db: Pg,
  id: string,
  options: { force: boolean },
  now?: Date,
): Promise<RemovedProject> {
  const p = projectId(id);
  const at = now === undefined ? null : isoTime(now, "now");
  return writeTx(db, async (tx) => {
    await requireProject(tx, p);
    const [keys] = await tx
      .select({ n: count() })
      .from(agentCredentials)
      .where(and(eq(agentCredentials.project, p), isNull(agentCredentials.revokedAt)));
    const held = {
      items: await rows(tx, items, p),
      runs: await rows(tx, runs, p),
      activeKeys: keys?.n ?? 0,
    };
    if (!options.force && held.items + held.runs + held.activeKeys > 0) {
      throw new KxmError(
        "project_not_empty",
        `project ${p} holds ${held.items} item(s), ${held.runs} run(s) and ${held.activeKeys} active agent ` +
          "key(s); remove them first, or remove the project with force to delete them too",
      );
    }
    // Proposal records cascade with their items, journal entries and their reviews with their runs.
    const removedItems = await tx.delete(items).where(eq(items.project, p)).returning({ id: items.id });
    const removedJournal = await tx
      .delete(journalEntries)
      .where(eq(journalEntries.project, p))
      .returning({ id: journalEntries.id });
    const removedRuns = await tx.delete(runs).where(eq(runs.project, p)).returning({ id: runs.id });
    const removedKeys = await tx
      .delete(agentCredentials)
      .where(eq(agentCredentials.project, p))
      .returning({ keyHash: agentCredentials.keyHash });
    await tx.delete(projects).where(eq(projects.id, p));
    await appendChange(tx, p, "project", [], at);
    return {
      project: p,
      items: removedItems.length,
      runs: removedRuns.length,
      journalEntries: removedJournal.length,
      agentKeys: removedKeys.length,
    };
  });
}
