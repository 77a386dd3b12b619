// BM25 over PoolIndex's postings: the query's terms weighed against the eligible set, scores summed group by group
// into the columns' per-request scores (in query order, so each sum is the plain scorer's float), one slot's score
// alone, and the count of a group's slots that hold any term.
import { idf, lengthNorm, termNumerator } from "./bm25.js";
import type { PoolColumns } from "./pool-columns.js";
import { GROUP_COUNT, TF_BITS, TF_MASK } from "./postings.js";

/** The query's terms that eligible items hold, in query order: their ids in the postings and their idfs. */
export interface WeighedTerms {
  readonly ids: readonly number[];
  readonly idfs: readonly number[];
}

/** Scoring over one index's columns, with the tables it keeps between requests. */
export class Scorer {
  /** The length norm of every length for one average length (see normsFor), and a term's numerator per small tf. */
  private norms = new Float64Array(0);
  private normsAverage = Number.NaN;
  private normsFilled = -1;
  private readonly numerators = new Float64Array(16);

  constructor(private readonly columns: PoolColumns) {}

  /**
   * The query terms some eligible slot holds, in query order, with their ids and idfs. A slot is eligible when its
   * group is marked in `eligibleGroups`, or it is one of `extra` (open contradictions outside those groups, which
   * the per-group document frequencies do not count). `weights` (one per term, 1 when absent) multiply the idfs,
   * as the plain scorer's do.
   */
  weighTerms(
    terms: readonly string[],
    documentCount: number,
    eligibleGroups: Uint8Array,
    extra: readonly number[],
    weights?: readonly number[],
  ): WeighedTerms {
    const { postings, groups } = this.columns;
    const ids: number[] = [];
    const idfs: number[] = [];
    for (const [i, term] of terms.entries()) {
      const id = postings.idOf(term);
      if (id === undefined) continue;
      let frequency = 0;
      for (let group = 0; group < GROUP_COUNT; group += 1) {
        if (eligibleGroups[group] === 1) frequency += postings.frequency(id, group);
      }
      for (const slot of extra) if (postings.tfOf(slot, id, groups[slot]!) !== 0) frequency += 1;
      if (frequency === 0) continue;
      ids.push(id);
      idfs.push((weights?.[i] ?? 1) * idf(documentCount, frequency));
    }
    return { ids, idfs };
  }

  /**
   * Adds each term's BM25 weight to the columns' scores for every slot of one group that holds it, term by term in
   * query order (so each slot's sum is formed in the same order as the plain scorer's). Slots touched for the first
   * time are appended to `touched` from `touchedCount`; returns the new count.
   */
  scoreGroup(group: number, weighed: WeighedTerms, norms: Float64Array, touchedCount: number): number {
    const { scores, touched, postings, lengths } = this.columns;
    const numerators = this.numerators;
    const { ids, idfs } = weighed;
    let count = touchedCount;
    const list = postings.arena;
    for (let term = 0; term < ids.length; term += 1) {
      const at = postings.listAt(ids[term]!, group);
      if (at === 0) continue;
      const termIdf = idfs[term]!;
      // termWeight(idf, tf, norm) = (idf * (tf * (k1 + 1))) / (tf + norm): the numerator depends on the term
      // frequency alone, so it is computed once per small frequency, by the same expression.
      for (let tf = 1; tf < numerators.length; tf += 1) numerators[tf] = termNumerator(termIdf, tf);
      const end = at + 1 + 2 * list[at]!;
      for (let i = at + 1; i < end; i += 2) {
        const slot = list[i]!;
        const entry = list[i + 1]!;
        // A packed entry holds the slot's length beside the frequency; a negative one (an item too long to pack)
        // holds the frequency alone.
        const tf = entry >= 0 ? entry & TF_MASK : ~entry;
        const norm = entry >= 0 ? norms[entry >>> TF_BITS]! : norms[lengths[slot]!]!;
        const numerator = tf < numerators.length ? numerators[tf]! : termNumerator(termIdf, tf);
        const score = scores[slot]!;
        if (score === 0) touched[count++] = slot;
        scores[slot] = score + numerator / (tf + norm);
      }
    }
    return count;
  }

  /** One slot's BM25 score from its own terms, summed in query order (the weight of each term as scoreGroup's). */
  scoreSlot(slot: number, weighed: WeighedTerms, norms: Float64Array): number {
    const { postings, groups, lengths } = this.columns;
    const { ids, idfs } = weighed;
    const group = groups[slot]!;
    const norm = norms[lengths[slot]!]!;
    let score = 0;
    for (let term = 0; term < ids.length; term += 1) {
      const tf = postings.tfOf(slot, ids[term]!, group);
      if (tf !== 0) score += termNumerator(idfs[term]!, tf) / (tf + norm);
    }
    return score;
  }

  /**
   * How many active slots of one group hold any of the terms, contradictions left out (they are counted on their
   * own). The union of the terms' lists is built as a bitset: a short list's slots are set one by one, then each
   * word ORs in the long lists' bitsets, longest first, until it holds every slot of the group in that word (a long
   * task's common words fill most words within a few lists).
   */
  countGroup(group: number, weighed: WeighedTerms, contradictions: readonly number[]): number {
    const { postings, union, groupMembers, groups, scores } = this.columns;
    const long: { size: number; bits: Int32Array }[] = [];
    const list = postings.arena;
    for (const id of weighed.ids) {
      const at = postings.listAt(id, group);
      if (at === 0) continue;
      const bits = postings.bitsOf(id, group);
      if (bits !== undefined) {
        long.push({ size: list[at]!, bits });
        continue;
      }
      const end = at + 1 + 2 * list[at]!;
      for (let i = at + 1; i < end; i += 2) {
        const slot = list[i]!;
        union[slot >>> 5]! |= 1 << (slot & 31);
      }
    }
    const dense = long.sort((a, b) => b.size - a.size).map((list) => list.bits);
    const members = groupMembers[group]!;
    let count = 0;
    for (let word = 0; word < union.length; word += 1) {
      const all = members[word]!;
      let bits = union[word]!;
      for (let i = 0; i < dense.length && bits !== all; i += 1) bits |= dense[i]![word]!;
      union[word] = 0;
      if (bits === 0) continue;
      bits -= (bits >>> 1) & 0x55555555;
      bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
      count += Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    // A contradiction was scored on its own before the walk: it holds a term exactly when its score is positive.
    for (const slot of contradictions) {
      if (groups[slot] === group && scores[slot]! > 0) count -= 1;
    }
    return count;
  }

  /**
   * The length norm of every length up to the longest item, for one average length. Every slot of one length
   * shares its norm, and the average changes only when the eligible set does, so the table is kept between
   * requests. The same function and arguments give the same floats as the plain scorer.
   */
  normsFor(avgLength: number): Float64Array {
    const { maxLength } = this.columns;
    if (this.norms.length <= maxLength) {
      this.norms = new Float64Array(maxLength + 1);
      this.normsFilled = -1;
    }
    if (avgLength !== this.normsAverage) {
      this.normsAverage = avgLength;
      this.normsFilled = -1;
    }
    const norms = this.norms;
    for (let length = this.normsFilled + 1; length <= maxLength; length += 1)
      norms[length] = lengthNorm(length, avgLength);
    this.normsFilled = Math.max(this.normsFilled, maxLength);
    return norms;
  }

  /** Clears what a request left in the columns' scratch: scores, marks and visits of `count` touched slots. */
  clear(count: number, contradictions: readonly number[]): void {
    const { touched, scores, marks, visits } = this.columns;
    for (let i = 0; i < count; i += 1) {
      const slot = touched[i]!;
      scores[slot] = 0;
      marks[slot] = 0;
      visits[slot] = 0;
    }
    for (const slot of contradictions) marks[slot] = 0;
  }
}
