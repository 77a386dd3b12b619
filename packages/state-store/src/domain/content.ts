import { createHash } from "node:crypto";

/**
 * The SHA-256 (hex) of an item's content as a tombstone keeps it (decision 0017): the content is the item's summary
 * exactly as stored (trimmed and redacted), in UTF-8. A journal entry's content is its summary; an authored fact's
 * or skill's is the summary the hub serves.
 */
export function contentSha256(summary: string): string {
  return createHash("sha256").update(summary, "utf8").digest("hex");
}
