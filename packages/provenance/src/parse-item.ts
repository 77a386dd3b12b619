import {
  type ContextItem,
  ContextItemSchema,
  KxmError,
  LIMITS,
  type Provenance,
  parseOrThrow,
} from "@kxm/contract";
import { assertWithinCeiling } from "./ceilings.js";
import { assertNoControlPlaneFields } from "./control-plane.js";
import { redactSecrets } from "./redact.js";
import { redactRefs } from "./redact-refs.js";
import { withRedactedErrors } from "./safe-parse.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function invalid(message: string): KxmError {
  return new KxmError("invalid_context_item", message);
}

function parseShape(raw: Record<string, unknown>): ContextItem {
  return withRedactedErrors(() =>
    parseOrThrow(ContextItemSchema, raw, "invalid_context_item", "context item"),
  );
}

function checkLifecycle(item: ContextItem): void {
  if (item.kind === "state" && (item.stateKey === undefined || item.status === undefined)) {
    throw invalid("context item: a state item needs a stateKey and a status");
  }
  if (item.kind !== "state" && item.stateKey !== undefined) {
    throw invalid("context item stateKey: only state items may carry a stateKey");
  }
  if (item.status === "current" && item.kind !== "state") {
    throw invalid("context item status: only state items may be current");
  }
  if (item.status === "proposed" && item.kind !== "state" && item.kind !== "skill") {
    throw invalid("context item status: only state and skill items may be proposed");
  }
}

function checkValidityWindow(item: ContextItem): void {
  if (item.validFrom === undefined || item.validUntil === undefined) return;
  if (!(Date.parse(item.validUntil) > Date.parse(item.validFrom))) {
    throw invalid("context item validUntil: must be after validFrom");
  }
}

function checkReviewWindow(item: ContextItem): void {
  if (item.expiresAt === undefined) return;
  if (item.reviewBy !== undefined && !(Date.parse(item.reviewBy) <= Date.parse(item.expiresAt))) {
    throw invalid("context item reviewBy: must not be after expiresAt");
  }
  const start = item.validFrom ?? item.observedAt;
  if (start !== undefined && !(Date.parse(item.expiresAt) > Date.parse(start))) {
    throw invalid("context item expiresAt: must be after validFrom (or observedAt)");
  }
}

function checkDerivation(item: ContextItem): void {
  const derivedFrom = item.provenance.derivedFrom;
  if (item.provenance.sourceType === "derived" && (derivedFrom === undefined || derivedFrom.length === 0)) {
    throw invalid("context item provenance.derivedFrom: a derived item needs at least one ancestor");
  }
  if (item.provenance.sourceType !== "derived" && derivedFrom !== undefined) {
    throw invalid("context item provenance.derivedFrom: only derived items may carry derivedFrom");
  }
}

function checkRedactedLength(field: string, value: string, max: number): void {
  // `[redacted]` is longer than the shortest secrets, so a value at its limit can grow past it.
  if (value.length > max) {
    throw new KxmError(
      "context_limits_exceeded",
      `context item ${field}: over ${max} characters after redaction`,
    );
  }
}

/** A copy with keys in the canonical order and no undefined-valued keys, so equal items serialize equally. */
function canonicalItem(item: ContextItem): ContextItem {
  const provenance: Provenance = { sourceType: item.provenance.sourceType };
  if (item.provenance.sourceRef !== undefined) provenance.sourceRef = item.provenance.sourceRef;
  if (item.provenance.derivedFrom !== undefined) provenance.derivedFrom = [...item.provenance.derivedFrom];
  const out: ContextItem = {
    id: item.id,
    kind: item.kind,
    project: item.project,
    summary: item.summary,
    provenance,
    authority: item.authority,
    confidence: item.confidence,
  };
  if (item.status !== undefined) out.status = item.status;
  if (item.stateKey !== undefined) out.stateKey = item.stateKey;
  if (item.scope !== undefined) out.scope = item.scope;
  if (item.observedAt !== undefined) out.observedAt = item.observedAt;
  if (item.validFrom !== undefined) out.validFrom = item.validFrom;
  if (item.validUntil !== undefined) out.validUntil = item.validUntil;
  if (item.expiresAt !== undefined) out.expiresAt = item.expiresAt;
  if (item.reviewBy !== undefined) out.reviewBy = item.reviewBy;
  if (item.evidenceRefs !== undefined) out.evidenceRefs = [...item.evidenceRefs];
  if (item.supersedes !== undefined) out.supersedes = [...item.supersedes];
  return out;
}

/**
 * Validates an untrusted context item and returns a redacted copy in canonical key order. Checks, in order:
 * a plain object (`invalid_context_item`); no control-plane field (403 `context_authority_violation`); the
 * schema (`invalid_context_item`, or `context_limits_exceeded` for a limit); the origin's authority ceiling (403
 * `context_authority_violation`); lifecycle rules, the validity window, the review window (`reviewBy` not after `expiresAt`, `expiresAt` after
 * `validFrom` or else `observedAt`) and derivation (`invalid_context_item`).
 * Then secrets in `summary`, `provenance.sourceRef` and every reference of `evidenceRefs`, `supersedes` and
 * `provenance.derivedFrom` become `[redacted]`; references that became equal are merged (see `redactRefs`).
 * Messages never echo a value.
 */
export function parseContextItem(raw: unknown): ContextItem {
  if (!isPlainObject(raw)) throw invalid("context item: must be a plain object");
  assertNoControlPlaneFields(raw);
  const item = parseShape(raw);
  assertWithinCeiling(item.provenance.sourceType, item.authority);
  checkLifecycle(item);
  checkValidityWindow(item);
  checkReviewWindow(item);
  checkDerivation(item);

  const summary = redactSecrets(item.summary);
  checkRedactedLength("summary", summary, LIMITS.summaryChars);
  const provenance: Provenance = { ...item.provenance };
  if (provenance.sourceRef !== undefined) {
    provenance.sourceRef = redactSecrets(provenance.sourceRef);
    checkRedactedLength("provenance.sourceRef", provenance.sourceRef, LIMITS.sourceRefChars);
  }
  if (provenance.derivedFrom !== undefined) provenance.derivedFrom = redactRefs(provenance.derivedFrom);
  const refs: Pick<ContextItem, "evidenceRefs" | "supersedes"> = {};
  if (item.evidenceRefs !== undefined) refs.evidenceRefs = redactRefs(item.evidenceRefs);
  if (item.supersedes !== undefined) refs.supersedes = redactRefs(item.supersedes);
  return canonicalItem({ ...item, summary, provenance, ...refs });
}
