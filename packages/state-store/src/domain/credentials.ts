import crypto from "node:crypto";
import { ADMIN_ACTOR, KxmError, OperatorNameSchema, parseOrThrow } from "@kxm/contract";

/** `kxm_` then 32 random bytes in base64url (43 characters). */
export const KEY_SHAPE = /^kxm_[A-Za-z0-9_-]{43}$/;

/** `kxo_` then 32 random bytes in base64url (43 characters): never mistaken for an agent key (`kxm_`). */
export const TOKEN_SHAPE = /^kxo_[A-Za-z0-9_-]{43}$/;

/** The SHA-256 a key or token is stored as, never the key itself. */
export function tokenHash(token: string): Buffer {
  return crypto.createHash("sha256").update(token, "utf8").digest();
}

/** An operator's name: the contract's rule, and never the admin token's own name. */
export function operatorName(value: unknown): string {
  const name = parseOrThrow(OperatorNameSchema, value, "invalid_request", "name");
  if (name === ADMIN_ACTOR) {
    throw new KxmError(
      "invalid_request",
      `name: ${ADMIN_ACTOR} is the admin token's name, not an operator's`,
    );
  }
  return name;
}
