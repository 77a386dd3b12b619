// The public surface of @kxm/provenance. Named exports only: adding a name here makes it public on purpose.
export {
  authorityRank,
  ceilingFor,
  isAuthorityAbove,
  strongestAuthority,
  weakerAuthority,
} from "./ceilings.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { ControlPlaneField } from "./control-plane.js";
export { assertNoControlPlaneFields, findControlPlaneField } from "./control-plane.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { DerivationBase } from "./derive.js";
export { deriveContextItem, summarizeContextItems } from "./derive.js";
export { journalEntryToItem, journalKindFor } from "./journal.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { ExplainedItem, LineageAncestor, LineageExplanation } from "./lineage.js";
export { explainLineage, lineageDepth, lineageOf } from "./lineage.js";
export { parseContextItem } from "./parse-item.js";
export { findSecretRanges, REDACTED, redactSecrets } from "./redact.js";
export { redactRef, redactRefs } from "./redact-refs.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { Range } from "./secretlint-ranges.js";
