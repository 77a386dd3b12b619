// Inspector sessions, as both engines store them: a bounded table of hashed ids, shared by every hub process on
// one database so that a session opened on one worker is known to all.

/** At most this many sessions are kept; past it, the one that expires first is dropped to make room. */
export const MAX_INSPECTOR_SESSIONS = 1_000;

/**
 * One inspector sign-in as stored. `idHash` is the SHA-256 (hex) of the session's id, never the id. An admin
 * session names the admin token it signed in with by `adminFingerprint`; an operator's names the operator and its
 * token's `createdAt`, so that a rotated or revoked credential ends the session.
 */
export type InspectorSessionRecord =
  | {
      readonly idHash: string;
      readonly user: { readonly kind: "admin"; readonly fingerprint: string };
      readonly expiresAt: string;
    }
  | {
      readonly idHash: string;
      readonly user: { readonly kind: "operator"; readonly name: string; readonly createdAt: string };
      readonly expiresAt: string;
    };

/** The stored row of a session (the columns both schemas define). */
export interface InspectorSessionRow {
  idHash: string;
  userKind: "admin" | "operator";
  operator: string | null;
  operatorCreatedAt: string | null;
  adminFingerprint: string | null;
  expiresAt: string;
  createdAt: string;
}

export function sessionRow(session: InspectorSessionRecord, createdAt: string): InspectorSessionRow {
  const { user } = session;
  return {
    idHash: session.idHash,
    userKind: user.kind,
    operator: user.kind === "operator" ? user.name : null,
    operatorCreatedAt: user.kind === "operator" ? user.createdAt : null,
    adminFingerprint: user.kind === "admin" ? user.fingerprint : null,
    expiresAt: session.expiresAt,
    createdAt,
  };
}

/** The session a row holds, or undefined for a row no version of KXM writes. */
export function sessionOf(row: InspectorSessionRow): InspectorSessionRecord | undefined {
  if (row.userKind === "admin" && row.adminFingerprint !== null) {
    return {
      idHash: row.idHash,
      user: { kind: "admin", fingerprint: row.adminFingerprint },
      expiresAt: row.expiresAt,
    };
  }
  if (row.userKind === "operator" && row.operator !== null && row.operatorCreatedAt !== null) {
    return {
      idHash: row.idHash,
      user: { kind: "operator", name: row.operator, createdAt: row.operatorCreatedAt },
      expiresAt: row.expiresAt,
    };
  }
  return undefined;
}

/** A well-formed id hash: 64 lowercase hex digits. */
export function isIdHash(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
