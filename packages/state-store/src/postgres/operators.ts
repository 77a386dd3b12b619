// Operator tokens on PostgreSQL: the same tokens, checks and errors as `../sqlite/operators.ts`.
import crypto from "node:crypto";
import { compareCodeUnits, KxmError, type OperatorRecord } from "@kxm/contract";
import { and, eq, isNull } from "drizzle-orm";
import { operatorName, TOKEN_SHAPE, tokenHash } from "../domain/credentials.js";
import { isoTime } from "../time.js";
import type { OperatorIdentity } from "../types.js";
import { type Pg, writeTx } from "./db.js";
import { prepared } from "./prepared.js";
import { operatorCredentials } from "./schema.js";

/**
 * A new token for the operator, returned once: only its SHA-256 is stored. An operator that already holds a token
 * that is not revoked is `invalid_request`.
 */
export async function createOperator(
  db: Pg,
  name: string,
  now: Date,
): Promise<{ name: string; token: string }> {
  const operator = operatorName(name);
  const createdAt = isoTime(now, "now");
  return writeTx(db, async (tx) => {
    const [active] = await tx
      .select({ keyHash: operatorCredentials.keyHash })
      .from(operatorCredentials)
      .where(and(eq(operatorCredentials.name, operator), isNull(operatorCredentials.revokedAt)));
    if (active !== undefined) {
      throw new KxmError(
        "invalid_request",
        `operator ${operator} already has an active token; revoke it before creating another`,
      );
    }
    const token = `kxo_${crypto.randomBytes(32).toString("base64url")}`;
    await tx
      .insert(operatorCredentials)
      .values({ keyHash: tokenHash(token).toString("hex"), name: operator, createdAt });
    return { name: operator, token };
  });
}

/** Revokes the operator's active token; false when it has none. */
export async function revokeOperator(db: Pg, name: string, now: Date): Promise<boolean> {
  const operator = operatorName(name);
  const revokedAt = isoTime(now, "now");
  const revoked = await db
    .update(operatorCredentials)
    .set({ revokedAt })
    .where(and(eq(operatorCredentials.name, operator), isNull(operatorCredentials.revokedAt)))
    .returning({ keyHash: operatorCredentials.keyHash });
  return revoked.length > 0;
}

/** The operators holding an active token, by name; never a token or its hash. */
export async function listOperators(db: Pg): Promise<OperatorRecord[]> {
  const rows = await db
    .select({ name: operatorCredentials.name, createdAt: operatorCredentials.createdAt })
    .from(operatorCredentials)
    .where(isNull(operatorCredentials.revokedAt));
  return rows.sort((a, b) => compareCodeUnits(a.name, b.name));
}

/**
 * The operator behind `token`, or undefined for a malformed, unknown or revoked token. As on SQLite, the token's
 * SHA-256 is compared with every active operator's in constant time (`timingSafeEqual`), without stopping at a
 * match, so the answer's timing never depends on how much of a guess is right.
 */
export async function authenticateOperator(db: Pg, token: string): Promise<OperatorIdentity | undefined> {
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) return undefined;
  const presented = tokenHash(token);
  const rows = await prepared(db, "kxm_active_operators", (pg, name) =>
    pg
      .select({ keyHash: operatorCredentials.keyHash, name: operatorCredentials.name })
      .from(operatorCredentials)
      .where(isNull(operatorCredentials.revokedAt))
      .prepare(name),
  ).execute();
  let found: string | undefined;
  for (const row of rows) {
    const stored = Buffer.from(row.keyHash, "hex");
    if (stored.length === presented.length && crypto.timingSafeEqual(stored, presented)) found = row.name;
  }
  return found === undefined ? undefined : { name: found };
}
