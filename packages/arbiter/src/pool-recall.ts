// Recall over PoolIndex's columns: the same hits, in the same order, as the plain `recall` over the same items.
import type { RecallResult } from "@kxm/contract";
import { averageLength } from "./bm25.js";
import { smallest } from "./heap.js";
import { mayContain, phraseBits } from "./phrase-signature.js";
import { KIND_COUNT, KIND_SLOT, LIVE, MARK_MATCHED, type PoolColumns, SKILL } from "./pool-columns.js";
import type { Scorer } from "./pool-scoring.js";
import { GROUP_COUNT } from "./postings.js";
import { type RecallHit, recallPhrase, recallResult } from "./recall.js";
import type { ResolvedRecallRequest } from "./request.js";
import { recallComparator, type SlotCompare } from "./slot-order.js";
import { queryTerms } from "./tokenize.js";

/** Recall for one index: its columns, its scorer, and its slots' order by rank.ts's recall keys. */
export class IndexRecall {
  /** Slots by RECALL_ORDER; a phrase hit is marked MARK_MATCHED while a recall runs. */
  private readonly compare: SlotCompare;

  constructor(
    private readonly columns: PoolColumns,
    private readonly scorer: Scorer,
  ) {
    this.compare = recallComparator(columns, (slot) => columns.marks[slot] === MARK_MATCHED);
  }

  /** Recalls records for a resolved request; the same result as the plain `recall` over the index's items. */
  recall(resolved: ResolvedRecallRequest): RecallResult {
    const columns = this.columns;
    const allowed = new Uint8Array(KIND_COUNT).fill(resolved.kinds === undefined ? 1 : 0);
    for (const kind of resolved.kinds ?? []) allowed[KIND_SLOT[kind]] = 1;
    allowed[SKILL] = 0;
    const { kinds, scores, flags, groupCounts, groupLengths } = columns;

    const phrase = recallPhrase(resolved.query);
    if (phrase === "") {
      const hits: RecallHit[] = [];
      for (const slot of columns.recallById) {
        if (hits.length === resolved.limit) break;
        if (allowed[kinds[slot]!]) hits.push({ item: columns.record(slot), phrase: false, score: 0 });
      }
      return recallResult(hits, resolved.limit);
    }

    let documentCount = 0;
    let totalLength = 0;
    for (let kind = 0; kind < KIND_COUNT; kind += 1) {
      if (!allowed[kind]) continue;
      documentCount += groupCounts[kind * 2]! + groupCounts[kind * 2 + 1]!;
      totalLength += groupLengths[kind * 2]! + groupLengths[kind * 2 + 1]!;
    }
    const eligibleGroups = new Uint8Array(GROUP_COUNT);
    for (let kind = 0; kind < KIND_COUNT; kind += 1) {
      eligibleGroups[kind * 2] = allowed[kind]!;
      eligibleGroups[kind * 2 + 1] = allowed[kind]!;
    }
    const weighed = this.scorer.weighTerms(queryTerms(resolved.query), documentCount, eligibleGroups, []);
    const norms = this.scorer.normsFor(averageLength(totalLength, documentCount));
    let touchedCount = 0;
    for (let group = 0; group < GROUP_COUNT; group += 1) {
      if (eligibleGroups[group] === 1)
        touchedCount = this.scorer.scoreGroup(group, weighed, norms, touchedCount);
    }
    // Phrase hits: scan in slot order (the order items sit in memory), then keep only the best `limit`. Only the
    // slots whose pair signature holds every pair of the phrase's characters can contain it, so only those are
    // searched (a phrase of one character has no pair and searches every slot).
    const { marks, pairSignature, lowerSummaries, lowerStateKeys } = columns;
    const bits = phraseBits(phrase);
    const hitSlots: number[] = [];
    for (let slot = 0; slot < columns.capacity; slot += 1) {
      if (!(flags[slot]! & LIVE) || allowed[kinds[slot]!] !== 1) continue;
      const isPhrase =
        mayContain(pairSignature, slot, bits) &&
        (lowerSummaries[slot]!.includes(phrase) || lowerStateKeys[slot]?.includes(phrase) === true);
      if (isPhrase) marks[slot] = MARK_MATCHED;
      if (isPhrase || scores[slot]! > 0) hitSlots.push(slot);
    }
    const best = smallest(hitSlots, resolved.limit, this.compare);
    const hits = best.map(
      (slot): RecallHit => ({
        item: columns.record(slot),
        phrase: marks[slot] === MARK_MATCHED,
        score: scores[slot]!,
      }),
    );
    for (let i = 0; i < touchedCount; i += 1) scores[columns.touched[i]!] = 0;
    for (const slot of hitSlots) marks[slot] = 0;
    return recallResult(hits, resolved.limit);
  }
}
