import type { ContextItem, RecallItem, RecallRequest, RecallResult } from "@kxm/contract";
import { roundScore, scoreCorpus } from "./bm25.js";
import { isLive } from "./eligibility.js";
import { compareRecallKeys } from "./rank.js";
import { checkPool, type ResolvedRecallRequest, resolveRecallRequest } from "./request.js";
import { type Analysis, checkAnalysis, queryTerms } from "./tokenize.js";

/** Options of a recall that do not come from the request. */
export interface RecallOptions {
  /** How text becomes tokens for the BM25 part (`standard`, the default, or `english`); phrase hits are unchanged. */
  readonly analysis?: Analysis;
}

const NO_RECALL_MATCH_GAP = "no matching context records";

/** A recall hit before it is cut to metadata. */
export interface RecallHit {
  readonly item: ContextItem;
  readonly phrase: boolean;
  readonly score: number;
}

/** The recall pool: live items that are not skills, of the requested kinds. */
function inRecallPool(item: ContextItem, request: ResolvedRecallRequest): boolean {
  return (
    item.kind !== "skill" &&
    isLive(item) &&
    (request.kinds === undefined || request.kinds.includes(item.kind))
  );
}

/** The phrase a query matches as a whole: trimmed and lowercased; empty means "list everything". */
export function recallPhrase(query: string): string {
  return query.trim().toLowerCase();
}

/** True when the summary or the state key contains the whole phrase, ignoring case. */
function isPhraseHit(item: ContextItem, phrase: string): boolean {
  return (
    item.summary.toLowerCase().includes(phrase) || item.stateKey?.toLowerCase().includes(phrase) === true
  );
}

/** Metadata only: a recall result never carries the summary. Optional keys sit in a fixed place. */
function toRecallItem(item: ContextItem, score: number): RecallItem {
  const { status } = item;
  const { sourceType, sourceRef, derivedFrom = [] } = item.provenance;
  return {
    id: item.id,
    kind: item.kind,
    authority: item.authority,
    confidence: item.confidence,
    ...(status === undefined ? {} : { status }),
    sourceType,
    ...(sourceRef === undefined ? {} : { sourceRef }),
    derived: sourceType === "derived" || derivedFrom.length > 0,
    lineageDepth: derivedFrom.length,
    relevance: roundScore(score),
  };
}

/** Cuts sorted hits to the limit and adds the gap when there is none. */
export function recallResult(hits: readonly RecallHit[], limit: number): RecallResult {
  const items = hits.slice(0, limit).map((hit) => toRecallItem(hit.item, hit.score));
  return { items, unresolvedGaps: items.length === 0 ? [NO_RECALL_MATCH_GAP] : [] };
}

/**
 * Recalls records by query (docs/reference/behaviour.md section 3): phrase hits (the whole query inside the summary or state key,
 * ignoring case) and items sharing a token with the query, phrase hits first, then BM25 descending, then id. An
 * empty query lists every item in id order. Results carry metadata only, never summaries.
 */
export function recall(
  pool: readonly ContextItem[],
  request: RecallRequest,
  options: RecallOptions = {},
): RecallResult {
  const resolved = resolveRecallRequest(request);
  const analysis = checkAnalysis(options.analysis ?? "standard");
  checkPool(pool, resolved.project);
  const items = pool.filter((item) => inRecallPool(item, resolved));
  const phrase = recallPhrase(resolved.query);
  if (phrase === "") {
    const all = items.map((item) => ({ item, phrase: false, score: 0 }));
    return recallResult(all.sort(compareRecallKeys), resolved.limit);
  }
  const { scores } = scoreCorpus(items, queryTerms(resolved.query, analysis), [], analysis);
  const hits: RecallHit[] = [];
  items.forEach((item, i) => {
    const score = scores[i]!;
    const isPhrase = isPhraseHit(item, phrase);
    if (isPhrase || score > 0) hits.push({ item, phrase: isPhrase, score });
  });
  return recallResult(hits.sort(compareRecallKeys), resolved.limit);
}
