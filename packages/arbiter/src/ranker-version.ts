/**
 * The version of what the arbiter computes from its inputs: the tokenizer, BM25, the nine ranking keys, the budget
 * fill, the gaps and the audit (near misses included). A packet id hashes it with the inputs, so bump it whenever
 * any of those changes what a packet or its audit holds for the same inputs, and only then: the same version and
 * inputs must always give the same bytes.
 *
 * @public
 */
export const RANKER_VERSION = "kxm-rank-1";
