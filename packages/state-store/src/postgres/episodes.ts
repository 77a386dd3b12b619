// Episode pages on PostgreSQL: the same pages and cursors as `../sqlite/episodes.ts`.
import { type ContextItem, KxmError } from "@kxm/contract";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { decodeCursor, encodeCursor } from "../domain/cursor.js";
import type { EpisodePage, EpisodePageOptions } from "../types.js";
import type { Pg } from "./db.js";
import { items } from "./schema.js";

const MAX_EPISODE_PAGE = 50;

/**
 * The project's episodes, newest first (finish time, then id, descending), one page at a time. The columns are
 * `COLLATE "C"`, so the database orders them as SQLite does.
 */
export async function listEpisodes(
  db: Pg,
  project: string,
  options: EpisodePageOptions,
): Promise<EpisodePage> {
  const { limit } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EPISODE_PAGE) {
    throw new KxmError("invalid_request", `limit: must be an integer from 1 to ${MAX_EPISODE_PAGE}`);
  }
  const conditions: SQL[] = [eq(items.project, project), eq(items.kind, "episode")];
  if (options.runId !== undefined) conditions.push(eq(items.runId, options.runId));
  if (options.before !== undefined) {
    const cursor = decodeCursor(options.before);
    conditions.push(
      or(lt(items.createdAt, cursor.at), and(eq(items.createdAt, cursor.at), lt(items.id, cursor.id)))!,
    );
  }
  const rows = await db
    .select({ createdAt: items.createdAt, id: items.id, body: items.body })
    .from(items)
    .where(and(...conditions))
    .orderBy(desc(items.createdAt), desc(items.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const out: { items: ContextItem[]; nextCursor?: string } = { items: page.map((row) => row.body) };
  const last = page[page.length - 1];
  if (rows.length > limit && last !== undefined)
    out.nextCursor = encodeCursor({ at: last.createdAt, id: last.id });
  return out;
}
