import type { AssembledPacket, ContextItem, ContextRequest } from "@kxm/contract";
import { documentOf, scoreCorpus } from "./bm25.js";
import { FirstFit, itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { expandQuery, FeedbackTop, usesFeedback, type WeightedQuery } from "./feedback.js";
import { checkWithheld, compareNearMisses, type NearMissCandidate, nearMissesOf } from "./near-miss.js";
import { type AssembleOptions, buildAssembly, type Selection } from "./packet.js";
import { authoritySortKey, compareRankKeys, confidenceSortKey, itemTime, type RankKeys } from "./rank.js";
import { checkPool, resolveContextRequest } from "./request.js";
import { type Analysis, checkAnalysis, queryTerms } from "./tokenize.js";

interface Candidate extends RankKeys {
  readonly item: ContextItem;
}

/**
 * Assembles a token-budgeted context packet from a pool, exactly as docs/reference/behaviour.md section 2 defines it: refuse a
 * foreign item, drop superseded and rejected items, keep open contradictions and the requested kinds that are not
 * inert, rank by the nine keys, fill the budget first-fit, place each item in one section, and audit, naming the
 * best candidates left out (docs/guides/arbiter.md, "Near misses").
 *
 * This is the executable specification: it scores the whole pool on every call. A long-lived caller serving many
 * requests should use {@link PoolIndex}, which gives byte-identical results.
 *
 * Pure and deterministic: the same pool (in any order) and request give the same bytes.
 */
export function assemblePacket(
  pool: readonly ContextItem[],
  request: ContextRequest,
  options: AssembleOptions = {},
): AssembledPacket {
  const resolved = resolveContextRequest(request);
  const analysis = checkAnalysis(options.analysis ?? "standard");
  checkPool(pool, resolved.project);
  const withheld = options.withheld ?? [];
  const poolIds = new Set(pool.map((item) => item.id));
  checkWithheld(withheld, resolved.project, (id) => poolIds.has(id));
  const contradictionIds = new Set(options.contradictionIds ?? []);
  const live = pool.filter(isLive);
  const eligible = live.filter(
    (item) => contradictionIds.has(item.id) || (resolved.kinds.includes(item.kind) && !isInert(item)),
  );

  const terms = queryTerms(resolved.task, analysis);
  const query = usesFeedback(analysis)
    ? withFeedback(eligible, terms, analysis)
    : { terms, weights: undefined };
  // Every other item is scored too, as one more document of the eligible set: the near misses need its score.
  const eligibleIds = new Set(eligible.map((item) => item.id));
  const others: { item: ContextItem; reason: NearMissCandidate["reason"] }[] = [
    ...pool
      .filter((item) => !eligibleIds.has(item.id))
      .map((item) => ({
        item,
        reason: !isLive(item)
          ? ("superseded" as const)
          : resolved.kinds.includes(item.kind)
            ? ("inert" as const)
            : ("kind_not_requested" as const),
      })),
    ...withheld,
  ];
  const { scores, extraScores } = scoreCorpus(
    eligible,
    query.terms,
    others.map(({ item }) => item),
    analysis,
    query.weights,
  );
  const candidates: Candidate[] = eligible.map((item, i) => {
    const score = scores[i]!;
    const kindIndex = resolved.kinds.indexOf(item.kind);
    return {
      item,
      id: item.id,
      contradiction: contradictionIds.has(item.id),
      shared: item.project !== resolved.project,
      kindIndex: kindIndex === -1 ? resolved.kinds.length : kindIndex,
      score,
      confidence: confidenceSortKey(item.confidence),
      authority: authoritySortKey(item.authority),
      time: itemTime(item),
    };
  });
  candidates.sort(compareRankKeys);

  const fit = new FirstFit<Selection>(resolved.budgetTokens);
  const taken = new Set<string>();
  // Candidates from `limitAt` on were never offered: the item limit was reached before them.
  let limitAt = candidates.length;
  for (const [at, candidate] of candidates.entries()) {
    if (fit.full) {
      limitAt = at;
      break;
    }
    if (fit.offer(candidate, itemCost(candidate.item))) taken.add(candidate.id);
  }

  // Near misses: every candidate left out that shares a term with the task or its feedback (a positive score).
  const missed: NearMissCandidate[] = [];
  for (const [at, candidate] of candidates.entries()) {
    if (candidate.score > 0 && !taken.has(candidate.id)) {
      const reason = at >= limitAt ? "item_limit" : "over_budget";
      missed.push({ item: candidate.item, reason, score: candidate.score });
    }
  }
  others.forEach(({ item, reason }, i) => {
    const score = extraScores[i]!;
    if (score > 0) missed.push({ item, reason, score });
  });
  missed.sort(compareNearMisses);
  return buildAssembly(
    resolved,
    {
      selected: fit.selected,
      chars: fit.chars,
      deferred: fit.deferred,
      liveCount: live.length,
      excludedSuperseded: pool.length - live.length,
      candidateCount: eligible.length,
      matchedCandidates: candidates.filter((candidate) => candidate.score > 0).length,
      taskTokens: terms.length,
      nearMisses: nearMissesOf(missed),
    },
    options,
  );
}

/** The task's terms with the feedback of the eligible items that score best for them (the english profile). */
function withFeedback(
  eligible: readonly ContextItem[],
  terms: readonly string[],
  analysis: Analysis,
): WeightedQuery {
  const { scores } = scoreCorpus(eligible, terms, [], analysis);
  const top = new FeedbackTop<ContextItem>();
  eligible.forEach((item, i) => {
    top.offer(item.id, scores[i]!, item);
  });
  return expandQuery(
    terms,
    top.items.map(({ id, score, of }) => ({ id, score, ...documentOf(of, analysis) })),
  );
}
