import type { ContextItem } from "@kxm/contract";
import { type Analysis, tokenize } from "./tokenize.js";

/** BM25 parameters of docs/reference/behaviour.md section 1. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/** The text an item is indexed by: its summary, plus " " and its state key when it has one. */
export function indexedText(item: ContextItem): string {
  return item.stateKey === undefined ? item.summary : `${item.summary} ${item.stateKey}`;
}

/** Inverse document frequency; always positive. */
export function idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** The mean document length, or 1 when every document is empty. */
export function averageLength(totalLength: number, documentCount: number): number {
  return totalLength === 0 ? 1 : totalLength / documentCount;
}

/** The length part of BM25's denominator for a document: k1 * (1 - b + b * length / avgdl). */
export function lengthNorm(length: number, avgLength: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength);
}

/**
 * One term's contribution to a document's score, given the document's {@link lengthNorm}. Every scorer (plain or
 * indexed) calls these two functions and adds the contributions in query-term order, so the floats are identical
 * bit for bit.
 */
function termWeight(termIdf: number, tf: number, norm: number): number {
  return termNumerator(termIdf, tf) / (tf + norm);
}

/** The numerator of {@link termWeight}: the index computes it once per term and frequency. */
export function termNumerator(termIdf: number, tf: number): number {
  return termIdf * (tf * (BM25_K1 + 1));
}

/**
 * A bound on one term's weight in any document: the weight grows with the frequency toward idf * (k1 + 1) and
 * never reaches it. A near-miss search skips a document whose bound cannot reach the best it has already found.
 */
export function termWeightBound(termIdf: number): number {
  return termIdf * (BM25_K1 + 1);
}

/** Scores are reported rounded half up to three decimals. */
export function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** Term frequencies of a token list. */
function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
  return tf;
}

interface Document {
  readonly length: number;
  readonly tf: Map<string, number>;
}

/** An item's token count and the frequency of each distinct term of its indexed text. */
export function documentOf(item: ContextItem, analysis: Analysis): Document {
  const tokens = tokenize(indexedText(item), analysis);
  return { length: tokens.length, tf: termFrequencies(tokens) };
}

/** A document's score: each term's weight it holds, summed in query-term order. */
function documentScore(
  { tf }: Document,
  terms: readonly string[],
  idfOf: (i: number) => number,
  norm: number,
): number {
  let score = 0;
  terms.forEach((term, i) => {
    const count = tf.get(term);
    if (count !== undefined) score += termWeight(idfOf(i), count, norm);
  });
  return score;
}

/** BM25 scores of a corpus, and of items outside it, each scored as one more document of it. */
export interface CorpusScores {
  readonly scores: number[];
  readonly extraScores: number[];
}

/**
 * BM25 scores of `terms` over a corpus, the plain way: tokenize every document, count document frequencies, sum
 * each document's term weights in query-term order. The executable definition the index is tested against.
 *
 * Each of `extras` is scored as the one document added to the corpus (the near misses of docs/guides/arbiter.md):
 * N + 1 documents, its own terms counted in their document frequencies, the average length taken with its own.
 * `weights` (one per term, 1 when absent) multiply each term's idf: the english profile's feedback weights.
 */
export function scoreCorpus(
  corpus: readonly ContextItem[],
  terms: readonly string[],
  extras: readonly ContextItem[] = [],
  analysis: Analysis = "standard",
  weights?: readonly number[],
): CorpusScores {
  const documents = corpus.map((item) => documentOf(item, analysis));
  const totalLength = documents.reduce((sum, doc) => sum + doc.length, 0);
  const avgLength = averageLength(totalLength, documents.length);
  const frequencies = terms.map((term) => documents.filter((doc) => doc.tf.has(term)).length);
  const weightOf = (i: number): number => weights?.[i] ?? 1;
  const idfs = frequencies.map((frequency, i) => weightOf(i) * idf(documents.length, frequency));
  const scores = documents.map((doc) =>
    documentScore(doc, terms, (i) => idfs[i]!, lengthNorm(doc.length, avgLength)),
  );
  // The one more document holds each term it is scored on, so each such term's frequency grows by one.
  const extraIdfs = frequencies.map((frequency, i) => weightOf(i) * idf(documents.length + 1, frequency + 1));
  const extraScores = extras.map((item) => {
    const doc = documentOf(item, analysis);
    const norm = lengthNorm(doc.length, averageLength(totalLength + doc.length, documents.length + 1));
    return documentScore(doc, terms, (i) => extraIdfs[i]!, norm);
  });
  return { scores, extraScores };
}
