import type { AssembledPacket, ContextItem, ContextRequest } from "@kxm/contract";
import { scoreCorpus } from "./bm25.js";
import { FirstFit, itemCost } from "./budget.js";
import { isInert, isLive } from "./eligibility.js";
import { type AssembleOptions, buildAssembly, type Selection } from "./packet.js";
import { authoritySortKey, compareRankKeys, confidenceSortKey, itemTime, type RankKeys } from "./rank.js";
import { checkPool, resolveContextRequest } from "./request.js";
import { queryTerms } from "./tokenize.js";

interface Candidate extends RankKeys {
  readonly item: ContextItem;
}

/**
 * Assembles a token-budgeted context packet from a pool, exactly as docs/reference/behaviour.md section 2 defines it: refuse a
 * foreign item, drop superseded and rejected items, keep open contradictions and the requested kinds that are not
 * inert, rank by the nine keys, fill the budget first-fit, place each item in one section, and audit.
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
  checkPool(pool, resolved.project);
  const contradictionIds = new Set(options.contradictionIds ?? []);
  const live = pool.filter(isLive);
  const eligible = live.filter(
    (item) => contradictionIds.has(item.id) || (resolved.kinds.includes(item.kind) && !isInert(item)),
  );

  const terms = queryTerms(resolved.task);
  const scores = scoreCorpus(eligible, terms);
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
  for (const candidate of candidates) {
    if (fit.full) break;
    fit.offer(candidate, itemCost(candidate.item));
  }
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
    },
    options,
  );
}
