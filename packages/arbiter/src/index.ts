// The public surface of @kxm/arbiter. Named exports only: adding a name here makes it public on purpose.
export { assemblePacket } from "./assemble.js";
export { indexedText } from "./bm25.js";
export { estimateTokens, itemTokens } from "./budget.js";
export { isInert, isLive } from "./eligibility.js";
/** @public The items of `AssembleOptions.withheld`: the hub builds them from its withheld rules. */
export type { WithheldItem, WithheldReason } from "./near-miss.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { AssembleOptions, PacketPhases } from "./packet.js";
/** @public Named by the signatures of PoolIndex and recall: a consumer may need to write them down. */
export type { PoolIndexOptions } from "./pool-index.js";
export { PoolIndex } from "./pool-index.js";
/** @public The hub hashes it into a packet id (decision 0016). */
export { RANKER_VERSION } from "./ranker-version.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { RecallOptions } from "./recall.js";
export { recall } from "./recall.js";
/** @public The analysis profiles' names. */
export type { Analysis } from "./tokenize.js";
export { ANALYSES, foldPlural, queryTerms, STOPWORDS, tokenize } from "./tokenize.js";
