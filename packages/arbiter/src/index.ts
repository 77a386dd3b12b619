// The public surface of @kxm/arbiter. Named exports only: adding a name here makes it public on purpose.
export { assemblePacket } from "./assemble.js";
export { BM25_B, BM25_K1, idf, indexedText, lengthNorm, roundScore, termWeight } from "./bm25.js";
export { estimateTokens, itemCost } from "./budget.js";
export { isInert, isLive } from "./eligibility.js";
export type { AssembleOptions, PacketPhases } from "./packet.js";
export { PoolIndex } from "./pool-index.js";
export { NO_RECALL_MATCH_GAP, recall } from "./recall.js";
export { foldPlural, queryTerms, STOPWORDS, tokenize } from "./tokenize.js";
