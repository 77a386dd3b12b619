// The public surface of @kxm/provenance. Named exports only: adding a name here makes it public on purpose.
export {
  assertWithinCeiling,
  authorityRank,
  ceilingFor,
  isAuthorityAbove,
  strongestAuthority,
  weakerAuthority,
} from "./ceilings.js";
export {
  assertNoControlPlaneFields,
  type ControlPlaneField,
  findControlPlaneField,
} from "./control-plane.js";
export { type DerivationBase, deriveContextItem, summarizeContextItems } from "./derive.js";
export { journalEntryToItem, journalKindFor } from "./journal.js";
export {
  type ExplainedItem,
  explainLineage,
  type LineageAncestor,
  type LineageExplanation,
  lineageDepth,
  lineageOf,
} from "./lineage.js";
export { parseContextItem } from "./parse-item.js";
export { findSecretRanges, REDACTED, redactSecrets } from "./redact.js";
export { redactRef, redactRefs } from "./redact-refs.js";
export type { Range } from "./secretlint-ranges.js";
