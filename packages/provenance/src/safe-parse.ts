import { isKxmError, KxmError } from "@kxm/contract";
import { redactSecrets } from "./redact.js";

/**
 * Runs a contract `parseOrThrow` call and redacts the message of the error it throws: the schema names unknown
 * keys, and a key can itself be a secret pasted in the wrong place.
 */
export function withRedactedErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (isKxmError(error)) throw new KxmError(error.code, redactSecrets(error.message));
    throw error;
  }
}
