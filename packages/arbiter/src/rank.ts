import { type Authority, type Confidence, type ContextItem, compareCodeUnits } from "@kxm/contract";

const CONFIDENCE_SORT_KEY: Readonly<Record<Confidence, number>> = { verified: 0, probable: 1, uncertain: 2 };
const AUTHORITY_SORT_KEY: Readonly<Record<Authority, number>> = {
  policy: 0,
  instruction: 1,
  evidence: 2,
  hypothesis: 3,
};

/** The confidence's place in an ascending sort: 0 for `verified`, the strongest, to 2 for `uncertain`. */
export function confidenceSortKey(confidence: Confidence): number {
  return CONFIDENCE_SORT_KEY[confidence];
}

/**
 * The authority's place in an ascending sort: 0 for `policy`, the strongest, to 3 for `hypothesis`. The reverse of
 * provenance's `authorityRank`, where a larger rank is stronger; a different name so neither is read the wrong way.
 */
export function authoritySortKey(authority: Authority): number {
  return AUTHORITY_SORT_KEY[authority];
}

function parseTime(value: string | undefined): number {
  return value === undefined ? Number.NEGATIVE_INFINITY : Date.parse(value);
}

/** An item's time for recency: the later of `observedAt` and `validFrom`; an item with neither is oldest. */
export function itemTime(item: ContextItem): number {
  return Math.max(parseTime(item.observedAt), parseTime(item.validFrom));
}

/** Everything the nine ranking keys read, computed once per item and request. */
export interface RankKeys {
  readonly id: string;
  /** 1. An open contradiction. */
  readonly contradiction: boolean;
  /** 2. A `_shared` default rather than the requested project's own record. */
  readonly shared: boolean;
  /** 4. Index of the kind in the requested kinds; unlisted kinds come last. */
  readonly kindIndex: number;
  /** 5. BM25 score; 3. is derived from it (matched means score > 0). */
  readonly score: number;
  /** 6. {@link confidenceSortKey}: smaller is stronger. */
  readonly confidence: number;
  /** 7. {@link authoritySortKey}: smaller is stronger. */
  readonly authority: number;
  /** 8. */
  readonly time: number;
}

/**
 * The nine keys of the guide, in order. A total order: ties end at the id, compared by UTF-16 code unit.
 */
export function compareRankKeys(a: RankKeys, b: RankKeys): number {
  if (a.contradiction !== b.contradiction) return a.contradiction ? -1 : 1;
  if (a.shared !== b.shared) return a.shared ? 1 : -1;
  const aMatched = a.score > 0;
  if (aMatched !== b.score > 0) return aMatched ? -1 : 1;
  if (a.kindIndex !== b.kindIndex) return a.kindIndex - b.kindIndex;
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.confidence !== b.confidence) return a.confidence - b.confidence;
  if (a.authority !== b.authority) return a.authority - b.authority;
  if (a.time !== b.time) return a.time > b.time ? -1 : 1;
  return compareCodeUnits(a.id, b.id);
}
