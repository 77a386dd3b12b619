// Pseudo-relevance feedback, the second half of the english profile: the items that score best for the task's own
// terms lend their most telling words to a second scoring (RM3: a relevance model of the best items, mixed half and
// half with the query). Both scorers, plain and indexed, hand the same items and counts to expandQuery, so the
// weights, and the scores built from them, are the same floats.
import { compareCodeUnits } from "@kxm/contract";
import type { Analysis } from "./tokenize.js";

/** How many of the best-scoring items lend their words (RM3's customary 10, not tuned on any collection). */
export const FEEDBACK_ITEMS = 10;
/** How many of their words join the query (RM3's customary 10). */
export const FEEDBACK_TERMS = 10;

/** Whether a profile scores with feedback: only the opt-in english one. */
export function usesFeedback(analysis: Analysis): boolean {
  return analysis === "english";
}

/** An item the feedback draws on: its first-pass score, its token count and each distinct term's frequency. */
export interface FeedbackItem {
  readonly id: string;
  readonly score: number;
  readonly length: number;
  readonly tf: ReadonlyMap<string, number>;
}

/** Query terms in scoring order with the weight each term's BM25 contribution is multiplied by. */
export interface WeightedQuery {
  readonly terms: readonly string[];
  readonly weights: readonly number[];
}

/** Feedback order: score descending, then id by code unit. */
function compareFeedback(a: { id: string; score: number }, b: { id: string; score: number }): number {
  return a.score !== b.score ? b.score - a.score : compareCodeUnits(a.id, b.id);
}

/**
 * The best {@link FEEDBACK_ITEMS} items offered with a positive score, in feedback order. `T` is what the caller
 * needs to count the item's terms later (an item, a slot).
 */
export class FeedbackTop<T> {
  private readonly best: { id: string; score: number; of: T }[] = [];

  offer(id: string, score: number, of: T): void {
    const best = this.best;
    if (!(score > 0)) return;
    const entry = { id, score, of };
    if (best.length === FEEDBACK_ITEMS && compareFeedback(entry, best[best.length - 1]!) >= 0) return;
    let at = best.length;
    while (at > 0 && compareFeedback(entry, best[at - 1]!) < 0) at -= 1;
    best.splice(at, 0, entry);
    if (best.length > FEEDBACK_ITEMS) best.pop();
  }

  /** The kept items, best first. */
  get items(): readonly { id: string; score: number; of: T }[] {
    return this.best;
  }
}

/**
 * The task's terms with their feedback terms (docs/guides/arbiter.md, "The english analysis profile"). With no
 * feedback item, the terms alone, each of weight 1. Otherwise each item weighs its share of the feedback items'
 * summed score; a word's relevance is the sum over the items of that share times its frequency over the item's
 * length; the {@link FEEDBACK_TERMS} most relevant words (ties by code unit) share a weight equal to the number of
 * task terms, in proportion to their relevance; a task term keeps weight 1, plus its share when it is one of those
 * words. The task's terms come first in their order, then the new words in relevance order.
 */
export function expandQuery(terms: readonly string[], feedback: readonly FeedbackItem[]): WeightedQuery {
  const ones = terms.map(() => 1);
  if (feedback.length === 0 || terms.length === 0) return { terms, weights: ones };
  const items = [...feedback].sort(compareFeedback);
  let total = 0;
  for (const item of items) total += item.score;
  const relevance = new Map<string, number>();
  for (const item of items) {
    const share = item.score / total;
    for (const [term, tf] of item.tf)
      relevance.set(term, (relevance.get(term) ?? 0) + (share * tf) / item.length);
  }
  const chosen = [...relevance]
    .sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : compareCodeUnits(a[0], b[0])))
    .slice(0, FEEDBACK_TERMS);
  let mass = 0;
  for (const [, value] of chosen) mass += value;
  const expanded = [...terms];
  const weights = ones;
  const at = new Map(terms.map((term, i) => [term, i]));
  for (const [term, value] of chosen) {
    const weight = (terms.length * value) / mass;
    const i = at.get(term);
    if (i === undefined) {
      expanded.push(term);
      weights.push(weight);
    } else weights[i] = 1 + weight;
  }
  return { terms: expanded, weights };
}
