// The inspector's sign-in sessions: held in this process's memory only, keyed by a random id that is all the
// browser's cookie carries (never a credential), each with its own form token against cross-site requests.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { KxmStore } from "@kxm/state-store";

/** How long a session lasts after sign-in: 12 hours, then the operator signs in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** At most this many sessions are kept; past it, the one that expires first is dropped to make room. */
const MAX_SESSIONS = 1_000;

/** Who a session is for: the admin, or a named operator as of the token it signed in with. */
export type InspectorUser =
  | { readonly kind: "admin" }
  | { readonly kind: "operator"; readonly name: string; readonly createdAt: string };

export interface InspectorSession {
  readonly id: string;
  readonly user: InspectorUser;
  /** The form token every POST of this session must carry (the `csrf` field). */
  readonly formToken: string;
  readonly expiresAt: number;
}

function randomId(): string {
  return randomBytes(32).toString("base64url");
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * The sessions of one hub. An operator's session is checked against the store's active operators on every
 * request (one read of a small table): revoking the operator's token, or replacing it (a new `createdAt`), ends
 * the session at its next request. An admin session lasts until it expires, the operator signs out, or the hub
 * restarts.
 */
export class InspectorSessions {
  private readonly byId = new Map<string, InspectorSession>();

  constructor(
    private readonly store: KxmStore,
    private readonly now: () => Date,
  ) {}

  /** Opens a session for a signed-in user. */
  open(user: InspectorUser): InspectorSession {
    const nowMs = this.now().getTime();
    for (const [id, session] of this.byId) if (session.expiresAt <= nowMs) this.byId.delete(id);
    if (this.byId.size >= MAX_SESSIONS) {
      const first = [...this.byId.values()].sort((a, b) => a.expiresAt - b.expiresAt)[0];
      if (first !== undefined) this.byId.delete(first.id);
    }
    const session = { id: randomId(), user, formToken: randomId(), expiresAt: nowMs + SESSION_LIFETIME_MS };
    this.byId.set(session.id, session);
    return session;
  }

  /** The live session with this id, or undefined (unknown, expired, or its operator's token revoked). */
  async current(id: string | undefined): Promise<InspectorSession | undefined> {
    if (id === undefined) return undefined;
    const session = this.byId.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now().getTime()) {
      this.byId.delete(id);
      return undefined;
    }
    if (session.user.kind === "operator") {
      const { name, createdAt } = session.user;
      const active = (await this.store.listOperators()).some(
        (operator) => operator.name === name && operator.createdAt === createdAt,
      );
      if (!active) {
        this.byId.delete(id);
        return undefined;
      }
    }
    return session;
  }

  /** Ends a session. */
  close(id: string): void {
    this.byId.delete(id);
  }
}

/** Whether a posted form token is the session's, compared in constant time. */
export function formTokenMatches(session: InspectorSession, posted: unknown): boolean {
  return typeof posted === "string" && timingSafeEqual(digest(session.formToken), digest(posted));
}
