// One packet from PoolIndex's columns: the eligible set, its scoring, and the first-fit walk over it in rank order.
// The walk follows rank.ts's RANK_ORDER: its first keys split the eligible set into parts (partsInOrder), walked
// one after another; within a part the matched items go by score and the static keys, the unmatched ones by the
// static keys alone (the index keeps them sorted). A kind's matched items are scored when the walk first reaches
// the kind, so a walk that fills the budget within the first kinds never scores the rest.
import { type AssembledPacket, type ContextRequest, LIMITS } from "@kxm/contract";
import { averageLength } from "./bm25.js";
import { FirstFit } from "./budget.js";
import { expandQuery, FeedbackTop, usesFeedback, type WeightedQuery } from "./feedback.js";
import { checkWithheld } from "./near-miss.js";
import { type AssembleOptions, buildAssembly, type PacketPhases, type Selection } from "./packet.js";
import { bringBest, FIRST_CHUNK } from "./partial-sort.js";
import {
  INERT,
  KIND_COUNT,
  KIND_SLOT,
  LIVE,
  MARK_CONTRADICTION,
  MARK_MATCHED,
  type PoolColumns,
  SHARED,
} from "./pool-columns.js";
import type { IndexNearMisses } from "./pool-near-misses.js";
import type { Scorer, WeighedTerms } from "./pool-scoring.js";
import { GROUP_COUNT } from "./postings.js";
import {
  compareRankKeys,
  type Part,
  partsInOrder,
  RANK_ORDER,
  type RankKeys,
  unwalkableOrder,
} from "./rank.js";
import { type ResolvedContextRequest, resolveContextRequest } from "./request.js";
import { matchedComparator, type SlotCompare } from "./slot-order.js";
import { queryTerms } from "./tokenize.js";

// The index can only walk an order of the shape its structure follows: refuse any other at load, not per packet.
const unwalkable = unwalkableOrder(RANK_ORDER);
if (unwalkable !== undefined) throw new Error(`PoolIndex cannot walk RANK_ORDER: ${unwalkable}`);

/** The parts of the eligible set in rank order, per number of requested kinds (at most one per kind). */
const PARTS: readonly (readonly Part[])[] = Array.from({ length: KIND_COUNT + 1 }, (_, kinds) =>
  partsInOrder(RANK_ORDER, kinds),
);

/** The clock of an assembly without phases: never called. */
const noClock = (): number => 0;

/** Phase timings, only when the caller asks for them (a benchmark), on the clock it passes. */
class PhaseClock {
  private mark: number;
  scoreMs = 0;
  sortMs = 0;

  constructor(
    readonly phases: PacketPhases | undefined,
    readonly now: () => number,
  ) {
    this.mark = phases === undefined ? 0 : now();
  }

  /** The time since the last lap. */
  lap(): number {
    const at = this.now();
    const ms = at - this.mark;
    this.mark = at;
    return ms;
  }
}

/** The eligible set of one request: its size, its token total and its open contradictions. */
interface Eligible {
  readonly documentCount: number;
  readonly totalLength: number;
  /** Live open contradictions, by slot. */
  readonly contradictions: readonly number[];
  /** Those outside the requested kinds' active groups (inert, or of a kind not requested). */
  readonly extraContradictions: readonly number[];
  /** 1 for the active groups of the requested kinds. */
  readonly groups: Uint8Array;
}

/**
 * Assembles a packet from an index's columns; the same result as `assemblePacket` over the index's items. Marks
 * the request's open contradictions, scores them, walks, counts what the walk never scored, finds the near
 * misses, and leaves the columns' scratch as it found it.
 */
export function assembleFromIndex(
  columns: PoolColumns,
  scorer: Scorer,
  nearMisses: IndexNearMisses,
  request: ContextRequest,
  options: AssembleOptions,
): AssembledPacket {
  const resolved = resolveContextRequest(request);
  columns.checkIsolation(resolved.project);
  const withheld = options.withheld ?? [];
  checkWithheld(withheld, resolved.project, (id) => columns.slotsById.has(id));
  const kindRank = new Int32Array(KIND_COUNT).fill(-1);
  resolved.kinds.forEach((kind, i) => {
    kindRank[KIND_SLOT[kind]] = i;
  });
  const eligible = eligibleSet(columns, resolved, kindRank, options.contradictionIds ?? []);
  const clock = new PhaseClock(options.phases, options.phases === undefined ? noClock : options.now);
  const terms = queryTerms(resolved.task, columns.analysis);
  if (clock.phases !== undefined) clock.phases.tokenizeMs = clock.lap();
  let weighed = scorer.weighTerms(
    terms,
    eligible.documentCount,
    eligible.groups,
    eligible.extraContradictions,
  );
  const norms = scorer.normsFor(averageLength(eligible.totalLength, eligible.documentCount));
  let weights: readonly number[] | undefined;
  let scoredTerms: readonly string[] = terms;
  if (usesFeedback(columns.analysis)) {
    // The english profile scores twice: the whole eligible set for the task's terms, then with its feedback.
    const feedbackStarted = clock.phases === undefined ? 0 : clock.now();
    const query = feedbackQuery(columns, scorer, eligible, weighed, norms, terms);
    scoredTerms = query.terms;
    weights = query.weights;
    weighed = scorer.weighTerms(
      scoredTerms,
      eligible.documentCount,
      eligible.groups,
      eligible.extraContradictions,
      weights,
    );
    if (clock.phases !== undefined) clock.scoreMs += clock.now() - feedbackStarted;
  }

  const walk = new PacketWalk(columns, scorer, resolved, kindRank, eligible, weighed, norms, clock);
  walk.run();
  const { fit } = walk;
  const countStarted = clock.phases === undefined ? 0 : clock.now();
  walk.countUnscored();
  if (clock.phases !== undefined) clock.scoreMs += clock.now() - countStarted;

  const nearStarted = clock.phases === undefined ? 0 : clock.now();
  const near = nearMisses.find({
    requested: resolved.kinds,
    terms: scoredTerms,
    weights,
    full: fit.full,
    taken: new Set(fit.selected.map(({ item }) => item)),
    rankedContradictions: walk.rankedContradictions,
    touchedCount: walk.touchedCount,
    scored: walk.scored,
    weighed,
    norms,
    documentCount: eligible.documentCount,
    totalLength: eligible.totalLength,
    eligibleGroups: eligible.groups,
    extraContradictions: eligible.extraContradictions,
    withheld,
  });
  if (clock.phases !== undefined) clock.scoreMs += clock.now() - nearStarted;
  scorer.clear(near.touchedCount, eligible.contradictions);

  const assembled = buildAssembly(
    resolved,
    {
      selected: fit.selected,
      chars: fit.chars,
      deferred: fit.deferred,
      liveCount: columns.slotsById.size - columns.deadCount,
      excludedSuperseded: columns.deadCount,
      candidateCount: eligible.documentCount,
      matchedCandidates: walk.matchedCount,
      taskTokens: terms.length,
      nearMisses: near.nearMisses,
    },
    options,
  );
  if (clock.phases !== undefined) {
    // The walk's time includes the kinds it scored and ordered on the way; the fill is the rest of it.
    const total = clock.lap();
    clock.phases.scoreMs = clock.scoreMs;
    clock.phases.sortMs = clock.sortMs;
    clock.phases.fillMs = total - (clock.scoreMs - walk.firstScoreMs) - clock.sortMs;
  }
  return assembled;
}

/**
 * The task's terms with their feedback (feedback.ts): every eligible slot scored for the task's terms alone, the
 * best kept, the scratch cleared (the contradictions' marks put back), and the kept slots' terms counted.
 */
function feedbackQuery(
  columns: PoolColumns,
  scorer: Scorer,
  eligible: Eligible,
  weighed: WeighedTerms,
  norms: Float64Array,
  terms: readonly string[],
): WeightedQuery {
  const { touched, scores, marks, lengths, groups, postings } = columns;
  let count = 0;
  for (let group = 0; group < GROUP_COUNT; group += 1) {
    if (eligible.groups[group] === 1) count = scorer.scoreGroup(group, weighed, norms, count);
  }
  const top = new FeedbackTop<number>();
  for (let i = 0; i < count; i += 1) {
    const slot = touched[i]!;
    top.offer(columns.record(slot).id, scores[slot]!, slot);
  }
  for (const slot of eligible.extraContradictions) {
    top.offer(columns.record(slot).id, scorer.scoreSlot(slot, weighed, norms), slot);
  }
  scorer.clear(count, []);
  for (const slot of eligible.contradictions) marks[slot] = MARK_CONTRADICTION;
  const feedback = top.items.map(({ id, score, of: slot }) => {
    const tf = new Map<string, number>();
    postings.forEachTerm(slot, groups[slot]!, (term, frequency) => {
      tf.set(postings.nameOf(term), frequency);
    });
    return { id, score, length: lengths[slot]!, tf };
  });
  return expandQuery(terms, feedback);
}

/** The eligible set: active items of the requested kinds, plus open contradictions of any kind or status. */
function eligibleSet(
  columns: PoolColumns,
  resolved: ResolvedContextRequest,
  kindRank: Int32Array,
  contradictionIds: Iterable<string>,
): Eligible {
  const { flags, kinds, marks, lengths, groupCounts, groupLengths } = columns;
  let documentCount = 0;
  let totalLength = 0;
  const groups = new Uint8Array(GROUP_COUNT);
  for (const kind of resolved.kinds) {
    documentCount += groupCounts[KIND_SLOT[kind] * 2]!;
    totalLength += groupLengths[KIND_SLOT[kind] * 2]!;
    groups[KIND_SLOT[kind] * 2] = 1;
  }
  const contradictions: number[] = [];
  const extraContradictions: number[] = [];
  for (const id of new Set(contradictionIds)) {
    const slot = columns.slotsById.get(id);
    if (slot === undefined || !(flags[slot]! & LIVE)) continue;
    contradictions.push(slot);
    marks[slot] = MARK_CONTRADICTION;
    if (flags[slot]! & INERT || kindRank[kinds[slot]!] === -1) {
      extraContradictions.push(slot);
      documentCount += 1;
      totalLength += lengths[slot]!;
    }
  }
  return { documentCount, totalLength, contradictions, extraContradictions, groups };
}

/**
 * One request's first-fit walk over the eligible set, part by part in rank order. A kind's matched items are split
 * into two buckets of the scratch list `ranked` when the kind is first reached, own then `_shared`; the walk orders
 * a bucket only as far as it reaches into it.
 */
class PacketWalk {
  readonly fit: FirstFit<Selection>;
  /** The open contradictions in rank order, with their keys (the near misses read them too). */
  readonly rankedContradictions: (RankKeys & { slot: number })[];
  /** Per requested kind's rank, 1 once its matched items are scored. */
  readonly scored: Uint8Array;
  touchedCount = 0;
  matchedCount = 0;
  /** The time the contradictions' scoring took, before the walk. */
  readonly firstScoreMs: number;
  private readonly parts: readonly Part[];
  /** Per requested kind's rank, [own start, own end, shared start, shared end) in `ranked`. */
  private readonly bucketBounds: Int32Array;
  private rankedEnd = 0;
  private walked = 0;
  private stoppedEarly = false;
  private readonly compareMatched: SlotCompare;

  constructor(
    private readonly columns: PoolColumns,
    private readonly scorer: Scorer,
    private readonly resolved: ResolvedContextRequest,
    private readonly kindRank: Int32Array,
    private readonly eligible: Eligible,
    private readonly weighed: WeighedTerms,
    private readonly norms: Float64Array,
    private readonly clock: PhaseClock,
  ) {
    const kindCount = resolved.kinds.length;
    this.fit = new FirstFit<Selection>(resolved.budgetTokens);
    this.scored = new Uint8Array(kindCount);
    this.bucketBounds = new Int32Array(kindCount * 4);
    this.parts = PARTS[kindCount]!;
    this.compareMatched = matchedComparator(columns, columns.compareStatic);
    // Contradictions are walked first, so they are scored first, each on its own terms.
    const { scores, touched } = columns;
    for (const slot of eligible.contradictions) {
      const score = scorer.scoreSlot(slot, weighed, norms);
      if (score === 0) continue;
      scores[slot] = score;
      touched[this.touchedCount++] = slot;
      this.matchedCount += 1;
    }
    this.firstScoreMs = clock.phases === undefined ? 0 : clock.lap();
    clock.scoreMs = this.firstScoreMs;
    this.rankedContradictions = eligible.contradictions
      .map((slot) => this.rankKeys(slot))
      .sort(compareRankKeys);
  }

  /** Walks every part in rank order, until the packet is full or nothing left could fit. */
  run(): void {
    for (const part of this.parts) if (!this.walkPart(part)) break;
    // Nothing left could fit: every eligible item not walked is deferred, exactly as a full walk would count it.
    if (this.stoppedEarly) this.fit.defer(this.eligible.documentCount - this.walked);
  }

  /** The audit counts the matched items of the kinds the walk never reached too. */
  countUnscored(): void {
    const requested = this.resolved.kinds;
    for (let rank = 0; rank < requested.length; rank += 1) {
      if (this.scored[rank] === 0) {
        this.matchedCount += this.scorer.countGroup(
          KIND_SLOT[requested[rank]!] * 2,
          this.weighed,
          this.eligible.contradictions,
        );
      }
    }
  }

  /** One contradiction's keys, as the plain assembly builds them. */
  private rankKeys(slot: number): RankKeys & { slot: number } {
    const { columns } = this;
    const kindIndex = this.kindRank[columns.kinds[slot]!]!;
    return {
      slot,
      id: columns.record(slot).id,
      contradiction: true,
      shared: (columns.flags[slot]! & SHARED) !== 0,
      kindIndex: kindIndex === -1 ? this.resolved.kinds.length : kindIndex,
      score: columns.scores[slot]!,
      confidence: columns.confidences[slot]!,
      authority: columns.authorities[slot]!,
      time: columns.times[slot]!,
    };
  }

  /** Walks one part; false once the walk must stop. */
  private walkPart(part: Part): boolean {
    if (part.contradiction) {
      for (const keys of this.rankedContradictions) {
        const matched = keys.score > 0;
        if (keys.shared !== part.shared || matched !== part.matched || keys.kindIndex !== part.kind) continue;
        if (!this.visit(keys.slot, true)) return false;
      }
      return true;
    }
    // Only open contradictions are eligible outside the requested kinds.
    if (part.kind === this.resolved.kinds.length) return true;
    this.scoreKind(part.kind);
    if (part.matched) {
      const at = part.kind * 4 + (part.shared ? 2 : 0);
      return this.walkBucket(this.bucketBounds[at]!, this.bucketBounds[at + 1]!);
    }
    const { marks, staticOrder } = this.columns;
    const order = staticOrder[part.shared ? 1 : 0]![KIND_SLOT[this.resolved.kinds[part.kind]!]]!;
    for (const slot of order) {
      if (marks[slot] !== 0) continue;
      if (!this.visit(slot, false)) return false;
    }
    return true;
  }

  /** Scores the matched items of one requested kind, once, and splits them into its two buckets. */
  private scoreKind(rank: number): void {
    if (this.scored[rank] === 1) return;
    this.scored[rank] = 1;
    const { clock, columns } = this;
    const { touched, marks, flags, ranked } = columns;
    const started = clock.phases === undefined ? 0 : clock.now();
    const from = this.touchedCount;
    this.touchedCount = this.scorer.scoreGroup(
      KIND_SLOT[this.resolved.kinds[rank]!] * 2,
      this.weighed,
      this.norms,
      this.touchedCount,
    );
    const partitioned = clock.phases === undefined ? 0 : clock.now();
    let ownCount = 0;
    for (let i = from; i < this.touchedCount; i += 1) {
      const slot = touched[i]!;
      if (marks[slot] === MARK_CONTRADICTION) continue;
      marks[slot] = MARK_MATCHED;
      this.matchedCount += 1;
      if (!(flags[slot]! & SHARED)) ownCount += 1;
    }
    let own = this.rankedEnd;
    let shared = this.rankedEnd + ownCount;
    const bounds = this.bucketBounds;
    bounds[rank * 4] = own;
    bounds[rank * 4 + 1] = shared;
    bounds[rank * 4 + 2] = shared;
    for (let i = from; i < this.touchedCount; i += 1) {
      const slot = touched[i]!;
      if (marks[slot] !== MARK_MATCHED) continue;
      if (flags[slot]! & SHARED) ranked[shared++] = slot;
      else ranked[own++] = slot;
    }
    bounds[rank * 4 + 3] = shared;
    this.rankedEnd = shared;
    if (clock.phases !== undefined) {
      const at = clock.now();
      clock.scoreMs += partitioned - started;
      clock.sortMs += at - partitioned;
    }
  }

  /** Offers one slot to the first fit; false once the walk must stop. */
  private visit(slot: number, contradiction: boolean): boolean {
    const { fit, columns } = this;
    if (fit.full) return false;
    if (fit.room < columns.minCost) {
      this.stoppedEarly = true;
      return false;
    }
    this.walked += 1;
    const score = columns.scores[slot]!;
    if (score !== 0) columns.visits[slot] = 1;
    const cost = columns.costs[slot]!;
    // What FirstFit.offer does with an item that does not fit, without making its selection first.
    if (cost > fit.room) fit.defer();
    else fit.offer({ item: columns.record(slot), score, contradiction }, cost);
    return true;
  }

  /**
   * Walks the matched items of ranked[start, end) in rank order: the best `chunk` of those not yet walked are
   * brought to the front (by the score of the chunk-th best) and sorted, then the next, four times as many, and so
   * on, so a walk that stops after a few dozen items pays about one linear pass over the bucket.
   */
  private walkBucket(start: number, end: number): boolean {
    const { fit, clock, columns } = this;
    const { ranked, costs, visits, scores, values } = columns;
    let next = start;
    let stop = end;
    let chunk = FIRST_CHUNK;
    let deferredSeen = fit.deferred;
    while (next < stop) {
      const sortStart = clock.phases === undefined ? 0 : clock.now();
      const count = stop - next <= chunk ? stop - next : bringBest(ranked, next, stop, chunk, scores, values);
      chunk *= 4;
      const front = ranked.subarray(next, next + count).sort(this.compareMatched);
      next += count;
      if (clock.phases !== undefined) clock.sortMs += clock.now() - sortStart;
      for (const slot of front) if (!this.visit(slot, false)) return false;
      if (fit.deferred === deferredSeen || next === stop) continue;
      // An item did not fit. The room only shrinks from here, so an item that does not fit now never will: each
      // is deferred where the walk would reach it. Unless the item limit could still be reached (the limit stops
      // the walk, and items after it are not deferred), count those at once and keep only the items that fit.
      deferredSeen = fit.deferred;
      const room = fit.room;
      let fitting = 0;
      for (let i = next; i < stop; i += 1) if (costs[ranked[i]!]! <= room) fitting += 1;
      if (fit.selected.length + fitting >= LIMITS.maxPacketItems) continue;
      let write = next;
      for (let i = next; i < stop; i += 1) {
        const slot = ranked[i]!;
        if (costs[slot]! <= room) ranked[write++] = slot;
        else visits[slot] = 1;
      }
      fit.defer(stop - write);
      this.walked += stop - write;
      deferredSeen = fit.deferred;
      stop = write;
    }
    return true;
  }
}
