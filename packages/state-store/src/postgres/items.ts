import { type ContextItem, compareCodeUnits } from "@kxm/contract";
import { and, eq, inArray } from "drizzle-orm";
import type { Pg } from "./db.js";
import { items } from "./schema.js";

/** Stores a new item with its indexed columns; `createdAt` is when the row was written. */
export async function insertItem(
  tx: Pg,
  item: ContextItem,
  createdAt: string,
  runId?: string,
): Promise<void> {
  await tx.insert(items).values({
    project: item.project,
    id: item.id,
    kind: item.kind,
    status: item.status ?? null,
    stateKey: item.stateKey ?? null,
    validFrom: item.validFrom ?? null,
    validUntil: item.validUntil ?? null,
    createdAt,
    runId: runId ?? null,
    body: item,
  });
}

/** Rewrites an item's lifecycle (status and validity window) and its body. */
export async function updateItem(tx: Pg, item: ContextItem): Promise<void> {
  await tx
    .update(items)
    .set({ status: item.status ?? null, validUntil: item.validUntil ?? null, body: item })
    .where(and(eq(items.project, item.project), eq(items.id, item.id)));
}

/** One item of the project, or undefined. */
export async function findItem(db: Pg, project: string, id: string): Promise<ContextItem | undefined> {
  const [row] = await db
    .select({ body: items.body })
    .from(items)
    .where(and(eq(items.project, project), eq(items.id, id)));
  return row?.body;
}

/** The project's items with these ids that exist, by id (code-unit order). */
export async function findItems(db: Pg, project: string, ids: readonly string[]): Promise<ContextItem[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ body: items.body })
    .from(items)
    .where(and(eq(items.project, project), inArray(items.id, [...ids])));
  return rows.map((row) => row.body).sort((a, b) => compareCodeUnits(a.id, b.id));
}

/** Every stored item of the project, by id (code-unit order). */
export async function liveItems(db: Pg, project: string): Promise<ContextItem[]> {
  const rows = await db.select({ body: items.body }).from(items).where(eq(items.project, project));
  return rows.map((row) => row.body).sort((a, b) => compareCodeUnits(a.id, b.id));
}
