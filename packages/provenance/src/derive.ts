import {
  type Authority,
  type ContextItem,
  ContextItemSchema,
  compareCodeUnits,
  type ItemKind,
  KxmError,
  LIMITS,
  parseOrThrow,
  SHARED_PROJECT,
} from "@kxm/contract";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { assertWithinCeiling, isAuthorityAbove, strongestAuthority, weakerAuthority } from "./ceilings.js";
import { assertNoControlPlaneFields } from "./control-plane.js";
import { lineageOf } from "./lineage.js";
import { parseContextItem } from "./parse-item.js";
import { redactSecrets } from "./redact.js";
import { withRedactedErrors } from "./safe-parse.js";

/** The caller's part of a derived item; provenance, authority and confidence are set by the derivation. */
export interface DerivationBase {
  id: string;
  kind: ItemKind;
  project: string;
  summary: string;
  scope?: string;
  observedAt?: string;
  validFrom?: string;
  evidenceRefs?: string[];
}

const BASE_FIELDS = [
  "id",
  "kind",
  "project",
  "summary",
  "scope",
  "observedAt",
  "validFrom",
  "evidenceRefs",
] as const;

/** Checks the lineage's size, then each ancestor's shape, then that none comes from another project. */
function checkLineage(project: string, lineage: readonly ContextItem[]): ContextItem[] {
  if (!Array.isArray(lineage) || lineage.length === 0) {
    throw new KxmError("invalid_context_item", "a derived item needs at least one ancestor");
  }
  if (lineage.length > LIMITS.maxLineage) {
    throw new KxmError(
      "context_limits_exceeded",
      `a derivation lineage holds at most ${LIMITS.maxLineage} ancestors`,
    );
  }
  const ancestors = lineage.map((ancestor, index) =>
    withRedactedErrors(() =>
      parseOrThrow(ContextItemSchema, ancestor, "invalid_context_item", `lineage ancestor ${index}`),
    ),
  );
  // A `_shared` default may feed any project, but a project's record never feeds another project or `_shared`.
  if (ancestors.some((ancestor) => ancestor.project !== project && ancestor.project !== SHARED_PROJECT)) {
    throw new KxmError(
      "context_isolation_violation",
      "a derivation lineage may not reach another project's items",
    );
  }
  return ancestors;
}

/**
 * Derives a new item from `lineage` (1 to 64 ancestor items): origin `derived`, confidence `probable`, authority
 * `claimedAuthority`, and `provenance.derivedFrom` the sorted union of the ancestors' ids and their own
 * `derivedFrom`. Refuses (403 `context_authority_violation`) authority above `evidence` or above the strongest
 * ancestor, (403 `context_isolation_violation`) an ancestor of another project than `base.project` other than
 * `_shared`, and (400 `context_limits_exceeded`) a union of more than 64. The result is validated and redacted
 * by {@link parseContextItem}.
 */
export function deriveContextItem(
  base: DerivationBase,
  claimedAuthority: Authority,
  lineage: readonly ContextItem[],
  sourceRef?: string,
): ContextItem {
  if (typeof base !== "object" || base === null) {
    throw new KxmError("invalid_context_item", "derivation base: must be an object");
  }
  assertNoControlPlaneFields(base);
  const ancestors = checkLineage(base.project, lineage);
  assertWithinCeiling("derived", claimedAuthority);
  const strongest = strongestAuthority(ancestors.map((ancestor) => ancestor.authority));
  if (strongest !== undefined && isAuthorityAbove(claimedAuthority, strongest)) {
    throw new KxmError(
      "context_authority_violation",
      `derived content cannot claim ${claimedAuthority} authority above its strongest ancestor's ${strongest}`,
    );
  }
  const derivedFrom = lineageOf(ancestors);
  if (derivedFrom.length > LIMITS.maxLineage) {
    throw new KxmError(
      "context_limits_exceeded",
      `a derivation lineage holds at most ${LIMITS.maxLineage} ancestors`,
    );
  }
  if (derivedFrom.includes(base.id)) {
    throw new KxmError("invalid_context_item", "a derived item cannot be its own ancestor");
  }

  const raw: Record<string, unknown> = {};
  for (const field of BASE_FIELDS) if (base[field] !== undefined) raw[field] = base[field];
  raw.provenance = { sourceType: "derived", ...(sourceRef === undefined ? {} : { sourceRef }), derivedFrom };
  raw.authority = claimedAuthority;
  raw.confidence = "probable";
  return parseContextItem(raw);
}

/**
 * A derived `knowledge` item that summarizes `lineage`. Its id is `sum_` plus the first 24 hex digits of the
 * SHA-256 of project, redacted trimmed summary and sorted ancestor ids; its authority is the weaker of
 * `evidence` and the strongest ancestor's. Deterministic: the order of `lineage` does not change a byte.
 */
export function summarizeContextItems(
  project: string,
  summary: string,
  lineage: readonly ContextItem[],
  sourceRef?: string,
): ContextItem {
  if (typeof summary !== "string")
    throw new KxmError("invalid_context_item", "context item summary: must be text");
  const ancestors = checkLineage(project, lineage);
  const strongest = strongestAuthority(ancestors.map((ancestor) => ancestor.authority)) ?? "hypothesis";
  const ancestorIds = [...new Set(ancestors.map((ancestor) => ancestor.id))].sort(compareCodeUnits);
  // JSON of an array is an unambiguous encoding: no separator can be forged from inside a field.
  const canonical = JSON.stringify(["kxm.summary.v1", project, redactSecrets(summary.trim()), ancestorIds]);
  const id = `sum_${bytesToHex(sha256(utf8ToBytes(canonical))).slice(0, 24)}`;
  return deriveContextItem(
    { id, kind: "knowledge", project, summary },
    weakerAuthority("evidence", strongest),
    ancestors,
    sourceRef,
  );
}
