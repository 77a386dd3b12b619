// The date rules: a record the pages claim whose expiry or review date the records' own time has reached.
import type { ContextItem, WikiRecords } from "@kxm/contract";
import { type Finding, finding } from "./findings.js";
import { claimsOf } from "./scan.js";

/**
 * Judged at `records.generatedAt` (the hub's time when it read them), never a clock: `expired_record` for a claim
 * of a current state value or an active fact whose `expiresAt` is at or before it (a hub withholds such an item
 * from packets, so the page should no longer state it), and `review_due` for one whose `reviewBy` is, at the
 * claim's page and line.
 */
export function checkDates(pages: ReadonlyMap<string, string>, records: WikiRecords): Finding[] {
  const at = Date.parse(records.generatedAt);
  if (Number.isNaN(at)) return [];
  const dated = new Map<string, ContextItem>();
  for (const item of [...records.state, ...records.memory]) {
    if (item.status === "superseded") continue;
    if (item.expiresAt !== undefined || item.reviewBy !== undefined) dated.set(item.id, item);
  }
  if (dated.size === 0) return [];
  const findings: Finding[] = [];
  for (const { page, line, id } of claimsOf(pages)) {
    const item = dated.get(id);
    if (item === undefined) continue;
    if (item.expiresAt !== undefined && Date.parse(item.expiresAt) <= at) {
      findings.push(
        finding("expired_record", page, `claims ${id}, which expired at ${item.expiresAt}`, { line, id }),
      );
    } else if (item.reviewBy !== undefined && Date.parse(item.reviewBy) <= at) {
      findings.push(
        finding("review_due", page, `claims ${id}, which was due for review at ${item.reviewBy}`, {
          line,
          id,
        }),
      );
    }
  }
  return findings;
}
