// Inspector sessions on PostgreSQL: the same rows and answers as `../sqlite/sessions.ts`.
import { KxmError } from "@kxm/contract";
import { and, asc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import {
  type InspectorSessionRecord,
  isIdHash,
  MAX_INSPECTOR_SESSIONS,
  sessionOf,
  sessionRow,
} from "../domain/sessions.js";
import { isoTime } from "../time.js";
import { type Pg, writeTx } from "./db.js";
import { inspectorSessions } from "./schema.js";

/** Stores a new session, first dropping expired ones and, at the cap, the one that expires first. */
export async function openInspectorSession(
  db: Pg,
  session: InspectorSessionRecord,
  now: Date,
): Promise<void> {
  if (!isIdHash(session.idHash)) throw new KxmError("invalid_request", "a session id hash is 64 hex digits");
  const at = isoTime(now, "now");
  await writeTx(db, async (tx) => {
    // One opener at a time, so two concurrent sign-ins at the cap cannot both skip the eviction.
    await tx.execute(sql`lock table inspector_sessions in share row exclusive mode`);
    await tx.delete(inspectorSessions).where(lte(inspectorSessions.expiresAt, at));
    const [counted] = await tx.select({ count: sql<number>`count(*)::int` }).from(inspectorSessions);
    const count = counted?.count ?? 0;
    if (count >= MAX_INSPECTOR_SESSIONS) {
      const first = await tx
        .select({ idHash: inspectorSessions.idHash })
        .from(inspectorSessions)
        .orderBy(asc(inspectorSessions.expiresAt), asc(inspectorSessions.idHash))
        .limit(count - MAX_INSPECTOR_SESSIONS + 1);
      await tx.delete(inspectorSessions).where(
        inArray(
          inspectorSessions.idHash,
          first.map((row) => row.idHash),
        ),
      );
    }
    await tx.insert(inspectorSessions).values(sessionRow(session, at));
  });
}

/** The unexpired session with this id hash, or undefined. */
export async function findInspectorSession(
  db: Pg,
  idHash: string,
  now: Date,
): Promise<InspectorSessionRecord | undefined> {
  if (!isIdHash(idHash)) return undefined;
  const [row] = await db
    .select()
    .from(inspectorSessions)
    .where(and(eq(inspectorSessions.idHash, idHash), gt(inspectorSessions.expiresAt, isoTime(now, "now"))));
  return row === undefined ? undefined : sessionOf(row);
}

/** Ends a session; nothing when there is none. */
export async function closeInspectorSession(db: Pg, idHash: string): Promise<void> {
  if (!isIdHash(idHash)) return;
  await db.delete(inspectorSessions).where(eq(inspectorSessions.idHash, idHash));
}
