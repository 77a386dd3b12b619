import { type ContextItem, compareCodeUnits } from "@kxm/contract";
import { and, eq } from "drizzle-orm";
import { items } from "../schema.js";
import type { Db } from "./db.js";

/** Stores a new item with its indexed columns; `createdAt` is when the row was written. */
export function insertItem(db: Db, item: ContextItem, createdAt: string, runId?: string): void {
  db.insert(items)
    .values({
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
    })
    .run();
}

/** Rewrites an item's lifecycle (status and validity window) and its body. */
export function updateItem(db: Db, item: ContextItem): void {
  db.update(items)
    .set({
      status: item.status ?? null,
      validUntil: item.validUntil ?? null,
      body: item,
    })
    .where(and(eq(items.project, item.project), eq(items.id, item.id)))
    .run();
}

/** One item of the project, or undefined. */
export function findItem(db: Db, project: string, id: string): ContextItem | undefined {
  return db
    .select({ body: items.body })
    .from(items)
    .where(and(eq(items.project, project), eq(items.id, id)))
    .get()?.body;
}

/** Every stored item of the project, by id (code-unit order). */
export function liveItems(db: Db, project: string): ContextItem[] {
  return db
    .select({ body: items.body })
    .from(items)
    .where(eq(items.project, project))
    .all()
    .map((row) => row.body)
    .sort((a, b) => compareCodeUnits(a.id, b.id));
}
