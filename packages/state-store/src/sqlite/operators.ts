import crypto from "node:crypto";
import { compareCodeUnits, KxmError, type OperatorRecord } from "@kxm/contract";
import { and, eq, isNull } from "drizzle-orm";
import { operatorName, TOKEN_SHAPE, tokenHash } from "../domain/credentials.js";
import { operatorCredentials } from "../schema.js";
import { isoTime } from "../time.js";
import type { OperatorIdentity } from "../types.js";
import { type Db, immediate } from "./db.js";

/**
 * A new token for the operator, returned once: only its SHA-256 is stored. An operator that already holds a token
 * that is not revoked is `invalid_request`.
 */
export function createOperator(db: Db, name: string, now: Date): { name: string; token: string } {
  const operator = operatorName(name);
  const createdAt = isoTime(now, "now");
  return immediate(db, () => {
    const active = db
      .select({ keyHash: operatorCredentials.keyHash })
      .from(operatorCredentials)
      .where(and(eq(operatorCredentials.name, operator), isNull(operatorCredentials.revokedAt)))
      .get();
    if (active !== undefined) {
      throw new KxmError(
        "invalid_request",
        `operator ${operator} already has an active token; revoke it before creating another`,
      );
    }
    const token = `kxo_${crypto.randomBytes(32).toString("base64url")}`;
    db.insert(operatorCredentials)
      .values({ keyHash: tokenHash(token).toString("hex"), name: operator, createdAt })
      .run();
    return { name: operator, token };
  });
}

/** Revokes the operator's active token; false when it has none. */
export function revokeOperator(db: Db, name: string, now: Date): boolean {
  const operator = operatorName(name);
  const revokedAt = isoTime(now, "now");
  const result = db
    .update(operatorCredentials)
    .set({ revokedAt })
    .where(and(eq(operatorCredentials.name, operator), isNull(operatorCredentials.revokedAt)))
    .run();
  return result.changes > 0;
}

/** The operators holding an active token, by name; never a token or its hash. */
export function listOperators(db: Db): OperatorRecord[] {
  return db
    .select({ name: operatorCredentials.name, createdAt: operatorCredentials.createdAt })
    .from(operatorCredentials)
    .where(isNull(operatorCredentials.revokedAt))
    .all()
    .sort((a, b) => compareCodeUnits(a.name, b.name));
}

/**
 * The operator behind `token`, or undefined for a malformed, unknown or revoked token. Operators are few, so the
 * token's SHA-256 is compared with every active operator's in constant time (`timingSafeEqual`), without stopping
 * at a match: like the admin token, the answer's timing never depends on how much of a guess is right.
 */
export function authenticateOperator(db: Db, token: string): OperatorIdentity | undefined {
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) return undefined;
  const presented = tokenHash(token);
  const rows = db
    .select({ keyHash: operatorCredentials.keyHash, name: operatorCredentials.name })
    .from(operatorCredentials)
    .where(isNull(operatorCredentials.revokedAt))
    .all();
  let found: string | undefined;
  for (const row of rows) {
    const stored = Buffer.from(row.keyHash, "hex");
    if (stored.length === presented.length && crypto.timingSafeEqual(stored, presented)) found = row.name;
  }
  return found === undefined ? undefined : { name: found };
}
