// The inspector's sign-in sessions: kept in the store, so that every hub process on one database (the workers of
// `kxm hub serve --workers`, or hubs sharing PostgreSQL) knows a session whichever of them opened it. The browser's
// cookie carries a random id, never a credential; the store keeps only the id's SHA-256. Each session's form token
// against cross-site requests is derived from its id, so it needs no storage of its own.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { InspectorSessionRecord, KxmStore } from "@kxm/state-store";
import type { AdminToken } from "../auth.js";

/** How long a session lasts after sign-in: 12 hours, then the operator signs in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Who a session is for: the admin, or a named operator as of the token it signed in with. */
export type InspectorUser =
  | { readonly kind: "admin" }
  | { readonly kind: "operator"; readonly name: string; readonly createdAt: string };

export interface InspectorSession {
  readonly id: string;
  readonly user: InspectorUser;
  /** The form token every POST of this session must carry (the `csrf` field). */
  readonly formToken: string;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function idHash(id: string): string {
  return digest(id).toString("hex");
}

function formTokenOf(id: string): string {
  return createHmac("sha256", id).update("kxm inspector form token").digest("base64url");
}

/** A cookie value this hub could have set: 32 random bytes in base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The sessions of one hub. An operator's session is checked against the store's active operators on every
 * request (one read of a small table): revoking the operator's token, or replacing it (a new `createdAt`), ends
 * the session at its next request. An admin session lasts until it expires or the operator signs out; a hub
 * started with another admin token no longer knows it. Past 1,000 live sessions, the one that expires first is
 * dropped.
 */
export class InspectorSessions {
  constructor(
    private readonly store: KxmStore,
    private readonly admin: AdminToken | undefined,
    private readonly now: () => Date,
  ) {}

  /** Opens a session for a signed-in user. */
  async open(user: InspectorUser): Promise<InspectorSession> {
    const now = this.now();
    const id = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
    if (user.kind === "admin") {
      if (this.admin === undefined) throw new Error("an admin session needs the hub's admin token");
      await this.store.openInspectorSession(
        { idHash: idHash(id), user: { kind: "admin", fingerprint: this.admin.fingerprint() }, expiresAt },
        now,
      );
    } else {
      await this.store.openInspectorSession({ idHash: idHash(id), user, expiresAt }, now);
    }
    return { id, user, formToken: formTokenOf(id) };
  }

  /** The live session with this id, or undefined (unknown, expired, or its credential revoked or changed). */
  async current(id: string | undefined): Promise<InspectorSession | undefined> {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const stored = await this.store.findInspectorSession(idHash(id), this.now());
    if (stored === undefined) return undefined;
    const user = await this.userOf(stored);
    if (user === undefined) {
      await this.store.closeInspectorSession(stored.idHash);
      return undefined;
    }
    return { id, user, formToken: formTokenOf(id) };
  }

  /** Ends a session. */
  async close(id: string): Promise<void> {
    await this.store.closeInspectorSession(idHash(id));
  }

  private async userOf(stored: InspectorSessionRecord): Promise<InspectorUser | undefined> {
    const { user } = stored;
    if (user.kind === "admin") {
      if (this.admin === undefined) return undefined;
      const same = timingSafeEqual(digest(user.fingerprint), digest(this.admin.fingerprint()));
      return same ? { kind: "admin" } : undefined;
    }
    const { name, createdAt } = user;
    const active = (await this.store.listOperators()).some(
      (operator) => operator.name === name && operator.createdAt === createdAt,
    );
    return active ? { kind: "operator", name, createdAt } : undefined;
  }
}

/** Whether a posted form token is the session's, compared in constant time. */
export function formTokenMatches(session: InspectorSession, posted: unknown): boolean {
  return typeof posted === "string" && timingSafeEqual(digest(session.formToken), digest(posted));
}
