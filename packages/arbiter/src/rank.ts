// The ranking orders, each defined once as data: the nine keys a packet's candidates are ranked by
// (docs/reference/behaviour.md section 2 step 4), and recall's three. The plain functions compare records by them
// (compareRankKeys, compareRecallKeys); PoolIndex compares its slots by the same lists and walks the parts the
// first keys split the pool into in the order the same list gives (packet-walk.ts). Changing a key, or the order,
// is a change here.
import { type Authority, type Confidence, type ContextItem, compareCodeUnits } from "@kxm/contract";

/**
 * How a key orders two values: `true-first` and `false-first` for yes-or-no keys, `ascending` and `descending`
 * for numbers, `code-units` for ids (UTF-16 code unit by code unit).
 */
export type Direction = "true-first" | "false-first" | "ascending" | "descending" | "code-units";

/** What a packet candidate is ranked by. */
export type RankKey =
  | "contradiction"
  | "shared"
  | "matched"
  | "kind"
  | "score"
  | "confidence"
  | "authority"
  | "time"
  | "id";

/** One key of an order: what it reads, which way it goes, and what it means. */
export interface OrderKey<K extends string> {
  readonly key: K;
  readonly direction: Direction;
  readonly meaning: string;
}

/**
 * The nine keys of a packet's ranking, in order: a total order, since ties end at the id. "Matched" is derived from
 * the score (a positive score is a match), so it is the third key and the score the fifth.
 */
export const RANK_ORDER: readonly OrderKey<RankKey>[] = [
  { key: "contradiction", direction: "true-first", meaning: "an open contradiction, of any kind or status" },
  {
    key: "shared",
    direction: "false-first",
    meaning: "the requested project's own record before a `_shared` one",
  },
  { key: "matched", direction: "true-first", meaning: "shares a token with the task (a positive score)" },
  {
    key: "kind",
    direction: "ascending",
    meaning: "the kind's place in the request's kinds, unlisted kinds last",
  },
  { key: "score", direction: "descending", meaning: "the BM25 score against the task" },
  { key: "confidence", direction: "ascending", meaning: "verified, then probable, then uncertain" },
  { key: "authority", direction: "ascending", meaning: "policy, instruction, evidence, then hypothesis" },
  {
    key: "time",
    direction: "descending",
    meaning: "the later of observedAt and validFrom; neither is oldest",
  },
  { key: "id", direction: "code-units", meaning: "the id, by UTF-16 code unit" },
];

/** What a recall hit is ranked by. */
export type RecallKey = "phrase" | "score" | "id";

/** Recall's order: whole-query substring hits first, then the BM25 score, then the id. */
export const RECALL_ORDER: readonly OrderKey<RecallKey>[] = [
  { key: "phrase", direction: "true-first", meaning: "the summary or state key holds the whole query" },
  { key: "score", direction: "descending", meaning: "the BM25 score against the query" },
  { key: "id", direction: "code-units", meaning: "the id, by UTF-16 code unit" },
];

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
  readonly contradiction: boolean;
  readonly shared: boolean;
  /** The kind's index in the requested kinds; an unlisted kind's is the number of requested kinds. */
  readonly kindIndex: number;
  /** The BM25 score; `matched` is a positive score. */
  readonly score: number;
  /** {@link confidenceSortKey}: smaller is stronger. */
  readonly confidence: number;
  /** {@link authoritySortKey}: smaller is stronger. */
  readonly authority: number;
  readonly time: number;
}

/** What recall's three keys read: a recall hit. */
export interface RecallKeys {
  readonly item: { readonly id: string };
  readonly phrase: boolean;
  readonly score: number;
}

/** Two yes-or-no values in a direction: negative when `a` comes first. */
function compareFlags(direction: Direction, a: boolean, b: boolean): number {
  if (a === b) return 0;
  return a === (direction === "true-first") ? -1 : 1;
}

/** Two numbers in a direction: negative when `a` comes first. */
function compareNumbers(direction: Direction, a: number, b: number): number {
  if (a === b) return 0;
  return a < b === (direction === "ascending") ? -1 : 1;
}

/** The value one key reads from a candidate's keys. */
function rankValue(keys: RankKeys, key: RankKey): boolean | number | string {
  switch (key) {
    case "contradiction":
      return keys.contradiction;
    case "shared":
      return keys.shared;
    case "matched":
      return keys.score > 0;
    case "kind":
      return keys.kindIndex;
    case "score":
      return keys.score;
    case "confidence":
      return keys.confidence;
    case "authority":
      return keys.authority;
    case "time":
      return keys.time;
    case "id":
      return keys.id;
  }
}

/** Two values of one key in its direction. */
function compareValues(
  direction: Direction,
  a: boolean | number | string,
  b: boolean | number | string,
): number {
  if (direction === "code-units") return compareCodeUnits(a as string, b as string);
  if (typeof a === "boolean") return compareFlags(direction, a, b as boolean);
  return compareNumbers(direction, a as number, b as number);
}

/** Two packet candidates by {@link RANK_ORDER}: negative when `a` ranks first. */
export function compareRankKeys(a: RankKeys, b: RankKeys): number {
  for (const { key, direction } of RANK_ORDER) {
    const order = compareValues(direction, rankValue(a, key), rankValue(b, key));
    if (order !== 0) return order;
  }
  return 0;
}

/** Two recall hits by {@link RECALL_ORDER}: negative when `a` ranks first. */
export function compareRecallKeys(a: RecallKeys, b: RecallKeys): number {
  for (const { key, direction } of RECALL_ORDER) {
    const order =
      key === "id"
        ? compareValues(direction, a.item.id, b.item.id)
        : compareValues(direction, a[key], b[key]);
    if (order !== 0) return order;
  }
  return 0;
}

/** The keys that split the eligible set into parts: yes-or-no keys and the kind. */
type PartKey = "contradiction" | "shared" | "matched" | "kind";
const PART_KEYS: readonly RankKey[] = ["contradiction", "shared", "matched", "kind"];
/** The keys that order the items of one matched part after their score, the id last. */
export type StaticKey = "confidence" | "authority" | "time" | "id";
const STATIC_KEYS: readonly RankKey[] = ["confidence", "authority", "time", "id"];

/**
 * Whether PoolIndex can walk an order: its first keys split the pool into parts (any order of the four), then the
 * score orders a part's matched items, then the static keys (any order of confidence, authority and time, the id
 * last) order them and the unmatched items, which the index keeps sorted by those alone. Answers why not, or
 * undefined.
 */
export function unwalkableOrder(order: readonly OrderKey<RankKey>[]): string | undefined {
  const keys = order.map(({ key }) => key);
  const parts = keys.slice(0, PART_KEYS.length);
  if (PART_KEYS.some((key) => !parts.includes(key)))
    return `the first ${PART_KEYS.length} keys must be ${PART_KEYS.join(", ")}, in any order`;
  const score = order[PART_KEYS.length];
  if (score?.key !== "score" || score.direction !== "descending")
    return "the score, highest first, must follow the keys that split the pool";
  const rest = keys.slice(PART_KEYS.length + 1);
  if (rest.length !== STATIC_KEYS.length || STATIC_KEYS.some((key) => !rest.includes(key)))
    return `the keys after the score must be ${STATIC_KEYS.join(", ")}`;
  if (rest.at(-1) !== "id") return "the id must be the last key";
  for (const { key, direction } of order) {
    const yesOrNo = key === "contradiction" || key === "shared" || key === "matched";
    const fits =
      key === "id"
        ? direction === "code-units"
        : yesOrNo
          ? direction === "true-first" || direction === "false-first"
          : direction === "ascending" || direction === "descending";
    if (!fits) return `key ${key} cannot go ${direction}`;
  }
  return undefined;
}

/** One part of the eligible set: the items whose four splitting keys have these values. */
export interface Part {
  readonly contradiction: boolean;
  readonly shared: boolean;
  readonly matched: boolean;
  /** An index into the requested kinds; the number of requested kinds stands for every unlisted kind. */
  readonly kind: number;
}

/**
 * Every part of the eligible set, in rank order, for a request of `kindCount` kinds: the product of the splitting
 * keys' values, each key's values in its direction, nested in the order's order.
 */
export function partsInOrder(order: readonly OrderKey<RankKey>[], kindCount: number): Part[] {
  let parts: Record<PartKey, boolean | number>[] = [{}] as Record<PartKey, boolean | number>[];
  for (const { key, direction } of order) {
    if (!(PART_KEYS as readonly string[]).includes(key)) continue;
    const values: (boolean | number)[] =
      key === "kind"
        ? Array.from({ length: kindCount + 1 }, (_, i) => (direction === "ascending" ? i : kindCount - i))
        : direction === "true-first"
          ? [true, false]
          : [false, true];
    parts = parts.flatMap((part) => values.map((value) => ({ ...part, [key]: value })));
  }
  return parts as unknown as Part[];
}

/** The static keys in the order's order, with their directions: what the index sorts unmatched items by. */
export function staticKeys(order: readonly OrderKey<RankKey>[]): readonly OrderKey<StaticKey>[] {
  return order.filter((entry): entry is OrderKey<StaticKey> => STATIC_KEYS.includes(entry.key));
}
