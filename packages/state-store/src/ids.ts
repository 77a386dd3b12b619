import { randomBytes } from "node:crypto";

/** `<prefix><24 random hex digits>` (96 bits from node:crypto). */
export function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}
