// Inspector sessions on SQLite: see `../domain/sessions.ts`.
import { KxmError } from "@kxm/contract";
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import {
  type InspectorSessionRecord,
  isIdHash,
  MAX_INSPECTOR_SESSIONS,
  sessionOf,
  sessionRow,
} from "../domain/sessions.js";
import { inspectorSessions } from "../schema.js";
import { isoTime } from "../time.js";
import { type Db, immediate } from "./db.js";

/** Stores a new session, first dropping expired ones and, at the cap, the one that expires first. */
export function openInspectorSession(db: Db, session: InspectorSessionRecord, now: Date): void {
  if (!isIdHash(session.idHash)) throw new KxmError("invalid_request", "a session id hash is 64 hex digits");
  const at = isoTime(now, "now");
  immediate(db, () => {
    db.delete(inspectorSessions).where(lte(inspectorSessions.expiresAt, at)).run();
    const { count } = db.select({ count: sql<number>`count(*)` }).from(inspectorSessions).get()!;
    if (count >= MAX_INSPECTOR_SESSIONS) {
      const first = db
        .select({ idHash: inspectorSessions.idHash })
        .from(inspectorSessions)
        .orderBy(asc(inspectorSessions.expiresAt), asc(inspectorSessions.idHash))
        .limit(count - MAX_INSPECTOR_SESSIONS + 1)
        .all();
      for (const row of first)
        db.delete(inspectorSessions).where(eq(inspectorSessions.idHash, row.idHash)).run();
    }
    db.insert(inspectorSessions).values(sessionRow(session, at)).run();
  });
}

/** The unexpired session with this id hash, or undefined. */
export function findInspectorSession(db: Db, idHash: string, now: Date): InspectorSessionRecord | undefined {
  if (!isIdHash(idHash)) return undefined;
  const row = db
    .select()
    .from(inspectorSessions)
    .where(and(eq(inspectorSessions.idHash, idHash), gt(inspectorSessions.expiresAt, isoTime(now, "now"))))
    .get();
  return row === undefined ? undefined : sessionOf(row);
}

/** Ends a session; nothing when there is none. */
export function closeInspectorSession(db: Db, idHash: string): void {
  if (!isIdHash(idHash)) return;
  db.delete(inspectorSessions).where(eq(inspectorSessions.idHash, idHash)).run();
}
