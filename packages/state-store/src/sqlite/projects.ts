import { KxmError } from "@kxm/contract";
import { eq } from "drizzle-orm";
import { checkoutRoot, compareText, projectId } from "../input.js";
import { projects } from "../schema.js";
import { isoTime } from "../time.js";
import type { Project } from "../types.js";
import { type Db, immediate } from "./db.js";

function toProject(row: typeof projects.$inferSelect): Project {
  return { id: row.id, checkoutRoot: row.checkoutRoot, createdAt: row.createdAt };
}

export function createProject(
  db: Db,
  input: { id: string; checkoutRoot?: string | null },
  now: Date,
): Project {
  const project: Project = {
    id: projectId(input.id),
    checkoutRoot: checkoutRoot(input.checkoutRoot),
    createdAt: isoTime(now, "now"),
  };
  immediate(db, () => {
    if (getProject(db, project.id) !== undefined) {
      throw new KxmError("invalid_request", `project ${project.id} already exists`);
    }
    db.insert(projects).values(project).run();
  });
  return project;
}

export function getProject(db: Db, id: string): Project | undefined {
  const row = db.select().from(projects).where(eq(projects.id, id)).get();
  return row === undefined ? undefined : toProject(row);
}

export function listProjects(db: Db): Project[] {
  return db
    .select()
    .from(projects)
    .all()
    .map(toProject)
    .sort((a, b) => compareText(a.id, b.id));
}
