import { KxmError, type ProjectRecord } from "@kxm/contract";
import { eq } from "drizzle-orm";
import { checkoutRoot, projectId } from "../input.js";
import { isoTime } from "../time.js";
import { appendChange } from "./changes.js";
import { type Pg, writeTx } from "./db.js";
import { projects } from "./schema.js";

function toProject(row: typeof projects.$inferSelect): ProjectRecord {
  return { id: row.id, checkoutRoot: row.checkoutRoot, createdAt: row.createdAt };
}

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

export async function getProject(db: Pg, id: string): Promise<ProjectRecord | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, id));
  return row === undefined ? undefined : toProject(row);
}
