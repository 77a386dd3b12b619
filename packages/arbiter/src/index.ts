// The public surface of @kxm/arbiter. Named exports only: adding a name here makes it public on purpose.
export { assemblePacket } from "./assemble.js";
export { indexedText } from "./bm25.js";
export { estimateTokens } from "./budget.js";
export { isInert, isLive } from "./eligibility.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { AssembleOptions, PacketPhases } from "./packet.js";
export { PoolIndex } from "./pool-index.js";
export { recall } from "./recall.js";
export { foldPlural, queryTerms, STOPWORDS, tokenize } from "./tokenize.js";
export { RANKER_VERSION } from "./version.js";
