/**
 * The version of the arbiter's assembly: what a packet id names besides the packet's inputs. Bump it (kxm-rank-2,
 * ...) in the same change as anything that can change a packet's bytes or its audit for the same inputs: the
 * ranking (tokenizer, BM25, weights, ties), the budget and fill, the gaps, the sections or the audit's fields. A
 * stored packet whose ranker version differs from this one cannot be replayed byte for byte by this build.
 */
export const RANKER_VERSION = "kxm-rank-1";
