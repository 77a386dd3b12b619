// Recall over PoolIndex's columns: the same hits, in the same order, as the plain `recall` over the same items.
import type { RecallResult } from "@kxm/contract";
import { averageLength } from "./bm25.js";
import { smallest } from "./heap.js";
import { bringBest, FIRST_CHUNK } from "./partial-sort.js";
import { mayContain, phraseBits } from "./phrase-signature.js";
import { KIND_COUNT, KIND_SLOT, LIVE, MARK_MATCHED, type PoolColumns, SKILL } from "./pool-columns.js";
import type { Scorer } from "./pool-scoring.js";
import { GROUP_COUNT } from "./postings.js";
import { RECALL_ORDER } from "./rank.js";
import { type RecallHit, recallPhrase, recallResult } from "./recall.js";
import type { ResolvedRecallRequest } from "./request.js";
import { recallComparator, type SlotCompare } from "./slot-order.js";
import { queryTerms } from "./tokenize.js";

/** How many slots recall reads in id order for phrase hits before it reads every slot in slot order. */
const ID_ORDER_READS = 2048;
/** Chunks of the best scored slots searched in recall order before the search takes the slots unordered. */
const ORDERED_ROUNDS = 2;

// The early stop below follows this order of keys; refuse any other at load rather than answer in another order.
const EXPECTED_ORDER = "phrase:true-first,score:descending,id:code-units";
const order = RECALL_ORDER.map(({ key, direction }) => `${key}:${direction}`).join(",");
if (order !== EXPECTED_ORDER) throw new Error(`IndexRecall cannot search by RECALL_ORDER ${order}`);

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
    const { kinds, scores, groupCounts, groupLengths } = columns;

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
    const weighed = this.scorer.weighTerms(
      queryTerms(resolved.query, this.columns.analysis),
      documentCount,
      eligibleGroups,
      [],
    );
    const norms = this.scorer.normsFor(averageLength(totalLength, documentCount));
    let touchedCount = 0;
    for (let group = 0; group < GROUP_COUNT; group += 1) {
      if (eligibleGroups[group] === 1)
        touchedCount = this.scorer.scoreGroup(group, weighed, norms, touchedCount);
    }
    // RECALL_ORDER puts phrase hits first, then score, then id, so the best `limit` can often be found without
    // searching every slot for the phrase. Without a scored term every score is 0 and phrase hits go by id: the
    // id-ordered list is read until `limit` are found, for at most ID_ORDER_READS slots (reading by id jumps about
    // in memory). With scored terms, the scored slots are searched best first, for ORDERED_ROUNDS chunks: once
    // `limit` of them hold the phrase, no other phrase hit can rank above them. Otherwise every slot is searched,
    // in slot order. Only the slots whose signature holds every trigram of the phrase are searched (a phrase under
    // three characters has none, and every slot reached is searched).
    const { marks, touched, phraseSignature, records, lowerStateKeys, flags, capacity } = columns;
    const bits = phraseBits(phrase);
    const holdsPhrase = (slot: number): boolean =>
      mayContain(phraseSignature, capacity, slot, bits) &&
      (lowerStateKeys[slot]?.includes(phrase) === true ||
        records[slot]!.summary.toLowerCase().includes(phrase));
    const limit = resolved.limit;
    /** Every phrase hit, once the search is complete; the scored ones alone when they sufficed. */
    let phraseHits: number[] = [];
    let searched = false;
    if (weighed.ids.length === 0) {
      const byId = columns.recallById;
      const reads = Math.min(byId.length, ID_ORDER_READS);
      for (let i = 0; i < reads && phraseHits.length < limit; i += 1) {
        const slot = byId[i]!;
        if (allowed[kinds[slot]!] === 1 && holdsPhrase(slot)) phraseHits.push(slot);
      }
      searched = phraseHits.length === limit || reads === byId.length;
    } else {
      // The best scored slots, in recall order by chunks (as the packet walk orders a bucket): a common word's
      // phrase is in nearly every slot that scores for it, so the first chunk usually holds `limit` phrase hits.
      const { ranked, values } = columns;
      ranked.set(touched.subarray(0, touchedCount));
      let next = 0;
      let chunk = FIRST_CHUNK;
      for (let round = 0; round < ORDERED_ROUNDS && next < touchedCount; round += 1) {
        const count =
          touchedCount - next <= chunk
            ? touchedCount - next
            : bringBest(ranked, next, touchedCount, chunk, scores, values);
        chunk *= 4;
        const front = ranked.subarray(next, next + count).sort(this.compare);
        next += count;
        for (let i = 0; i < count && phraseHits.length < limit; i += 1) {
          if (holdsPhrase(front[i]!)) phraseHits.push(front[i]!);
        }
        if (phraseHits.length === limit) break;
      }
      // Fewer than `limit` among the best scored: unscored slots may hold the phrase too, so every slot is searched.
      searched = phraseHits.length === limit;
    }
    if (!searched) {
      phraseHits = [];
      for (let slot = 0; slot < columns.capacity; slot += 1) {
        // allowed[SKILL] is 0: skills are never recalled.
        if (flags[slot]! & LIVE && allowed[kinds[slot]!] === 1 && holdsPhrase(slot)) phraseHits.push(slot);
      }
    }
    for (const slot of phraseHits) marks[slot] = MARK_MATCHED;
    const best = smallest(phraseHits, limit, this.compare);
    if (best.length < limit) {
      const others: number[] = [];
      for (let i = 0; i < touchedCount; i += 1) if (marks[touched[i]!] === 0) others.push(touched[i]!);
      best.push(...smallest(others, limit - best.length, this.compare));
    }
    const hits = best.map(
      (slot): RecallHit => ({
        item: columns.record(slot),
        phrase: marks[slot] === MARK_MATCHED,
        score: scores[slot]!,
      }),
    );
    for (let i = 0; i < touchedCount; i += 1) scores[touched[i]!] = 0;
    for (const slot of phraseHits) marks[slot] = 0;
    return recallResult(hits, resolved.limit);
  }
}
