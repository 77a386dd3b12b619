// The engine-free half of revocations and tombstones (decision 0017): checking what an operator asked for, and
// turning a stored row into the record the API answers. Both stores' `withhold.ts` build on it.
import { KxmError, LIMITS, type Revocation, type Tombstone } from "@kxm/contract";
import { randomId } from "../ids.js";
import { projectId, recordId, redactedText } from "../input.js";
import { isoTime } from "../time.js";
import type { RevocationTarget, RevokeInput, TombstoneKind } from "../types.js";
import { contentSha256 } from "./content.js";

const TARGETS: ReadonlySet<string> = new Set(["evidence", "source", "source_prefix", "item", "agent"]);

/** The lift columns both rules tables have. */
interface LiftColumns {
  liftedBy: string | null;
  liftedAt: string | null;
  liftReason: string | null;
}

/** A `revocations` row as either store reads it. */
export interface RevocationRow extends LiftColumns {
  id: string;
  project: string;
  target: RevocationTarget;
  value: string;
  reason: string;
  revokedBy: string;
  revokedAt: string;
}

/** A `tombstones` row as either store reads it. */
export interface TombstoneRow extends LiftColumns {
  id: string;
  project: string;
  itemId: string;
  kind: TombstoneKind;
  contentSha256: string;
  reason: string;
  forgottenBy: string;
  forgottenAt: string;
}

export function toRevocation(row: RevocationRow): Revocation {
  const revocation: Revocation = {
    id: row.id,
    project: row.project,
    target: row.target,
    value: row.value,
    reason: row.reason,
    revokedBy: row.revokedBy,
    revokedAt: row.revokedAt,
  };
  if (row.liftedBy !== null) revocation.liftedBy = row.liftedBy;
  if (row.liftedAt !== null) revocation.liftedAt = row.liftedAt;
  if (row.liftReason !== null) revocation.liftReason = row.liftReason;
  return revocation;
}

export function toTombstone(row: TombstoneRow): Tombstone {
  const tombstone: Tombstone = {
    id: row.id,
    project: row.project,
    itemId: row.itemId,
    kind: row.kind,
    contentSha256: row.contentSha256,
    reason: row.reason,
    forgottenBy: row.forgottenBy,
    forgottenAt: row.forgottenAt,
  };
  if (row.liftedBy !== null) tombstone.liftedBy = row.liftedBy;
  if (row.liftedAt !== null) tombstone.liftedAt = row.liftedAt;
  if (row.liftReason !== null) tombstone.liftReason = row.liftReason;
  return tombstone;
}

/** A reason as stored: trimmed, non-empty, redacted, at most 500 characters. */
export function reasonText(value: unknown): string {
  return redactedText(value, "reason", LIMITS.withholdReasonChars);
}

/**
 * The revocation row a request asks for, with a new id, before it is stored: an unknown target or an empty value
 * is `invalid_request`, a value or reason over its limit `context_limits_exceeded`.
 */
export function newRevocation(input: RevokeInput, now: Date): Omit<RevocationRow, keyof LiftColumns> {
  const project = projectId(input.project);
  if (typeof input.target !== "string" || !TARGETS.has(input.target)) {
    throw new KxmError("invalid_request", "target: must be evidence, source, source_prefix, item or agent");
  }
  if (typeof input.value !== "string" || input.value.length === 0) {
    throw new KxmError("invalid_request", "value: must be a non-empty string");
  }
  if (input.value.length > LIMITS.refChars) {
    throw new KxmError("context_limits_exceeded", `value: over ${LIMITS.refChars} characters`);
  }
  return {
    id: randomId("rev_"),
    project,
    target: input.target as RevocationTarget,
    value: input.value,
    reason: reasonText(input.reason),
    revokedBy: recordId(input.revokedBy, "revokedBy", "invalid_request"),
    revokedAt: isoTime(now, "now"),
  };
}

/** A rule as it stood before it was lifted: the matcher applies it. */
export function unlifted<T extends Revocation | Tombstone>(rule: T): T {
  const { liftedBy: _by, liftedAt: _at, liftReason: _reason, ...before } = rule;
  return before as T;
}

/** The columns of a new tombstone that a forget does not decide from the record it finds. */
type TombstoneBase = Pick<TombstoneRow, "id" | "project" | "reason" | "forgottenBy" | "forgottenAt">;

/**
 * What forgetting `itemId` keeps and deletes by (decision 0017): the stored item of that id, else the journal entry
 * it names, else the authored fact or skill whose summary the caller gave; the tombstone row and the summary whose
 * every stored copy goes. Neither stored nor authored: 404 `not_found`.
 */
export function tombstoneFor(
  base: TombstoneBase,
  itemId: string,
  found: { item?: { summary: string }; entry?: { id: string; summary: string }; authoredSummary?: unknown },
): { row: Omit<TombstoneRow, keyof LiftColumns>; summary: string } {
  if (found.item !== undefined) {
    const summary = found.item.summary;
    return { row: { ...base, itemId, kind: "item", contentSha256: contentSha256(summary) }, summary };
  }
  if (found.entry !== undefined) {
    const summary = found.entry.summary;
    return {
      row: {
        ...base,
        itemId: `journal_${found.entry.id}`,
        kind: "journal",
        contentSha256: contentSha256(summary),
      },
      summary,
    };
  }
  if (typeof found.authoredSummary === "string") {
    const summary = found.authoredSummary;
    return { row: { ...base, itemId, kind: "authored", contentSha256: contentSha256(summary) }, summary };
  }
  throw new KxmError("not_found", `no item ${itemId} in project ${base.project}`);
}
