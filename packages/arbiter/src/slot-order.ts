// The ranking orders of rank.ts over PoolIndex's columns: comparators of slot numbers, so that the index sorts by
// the same definition the plain functions do, without building each slot's keys.
import { type ContextItem, compareCodeUnits } from "@kxm/contract";
import { type Direction, RANK_ORDER, RECALL_ORDER, staticKeys } from "./rank.js";

/** What the slot comparators read: the columns PoolIndex keeps per slot (replaced when they grow). */
export interface RankColumns {
  readonly records: readonly (ContextItem | undefined)[];
  readonly confidences: Uint8Array;
  readonly authorities: Uint8Array;
  readonly times: Float64Array;
}

/** The columns with the per-request scores. */
export interface ScoredColumns extends RankColumns {
  readonly scores: Float64Array;
}

/** A comparator of slots: negative when slot `a` ranks first. */
export type SlotCompare = (a: number, b: number) => number;

const CONFIDENCE = 0;
const AUTHORITY = 1;
const TIME = 2;
const ID = 3;
const CODES = { confidence: CONFIDENCE, authority: AUTHORITY, time: TIME, id: ID } as const;

/** +1 when a direction keeps the natural order of numbers (or code units), -1 when it reverses it. */
function sign(direction: Direction): number {
  return direction === "descending" || direction === "false-first" ? -1 : 1;
}

/**
 * The slots' order by the static keys of {@link RANK_ORDER} (confidence, authority, time, id, in the order's
 * order): how the index keeps its unmatched items sorted, and how it breaks ties of score. One switch per key
 * rather than a chain of closures, so that the sort's comparator makes no calls but the id's.
 */
export function staticComparator(columns: RankColumns): SlotCompare {
  const keys = staticKeys(RANK_ORDER);
  const codes = Int8Array.from(keys, ({ key }) => CODES[key]);
  const signs = Int8Array.from(keys, ({ direction }) => sign(direction));
  return (a, b) => {
    for (let i = 0; i < codes.length; i += 1) {
      let order: number;
      switch (codes[i]) {
        case CONFIDENCE:
          order = columns.confidences[a]! - columns.confidences[b]!;
          break;
        case AUTHORITY:
          order = columns.authorities[a]! - columns.authorities[b]!;
          break;
        case TIME: {
          const x = columns.times[a]!;
          const y = columns.times[b]!;
          order = x === y ? 0 : Math.sign(x - y);
          break;
        }
        default:
          order = compareCodeUnits(columns.records[a]!.id, columns.records[b]!.id);
      }
      if (order !== 0) return order * signs[i]!;
    }
    return 0;
  };
}

/** The direction of the score in {@link RANK_ORDER}, as a sign. */
const RANK_SCORE_SIGN = sign(RANK_ORDER.find(({ key }) => key === "score")!.direction);

/** A matched part's order: the score in its direction, then {@link staticComparator}. */
export function matchedComparator(columns: ScoredColumns, byStatic: SlotCompare): SlotCompare {
  return (a, b) => {
    const scores = columns.scores;
    const x = scores[a]!;
    const y = scores[b]!;
    if (x !== y) return Math.sign(x - y) * RANK_SCORE_SIGN;
    return byStatic(a, b);
  };
}

/** Slots by {@link RECALL_ORDER}: `phrase(slot)` says whether the slot is a phrase hit. */
export function recallComparator(columns: ScoredColumns, phrase: (slot: number) => boolean): SlotCompare {
  const compare = RECALL_ORDER.map(({ key, direction }): SlotCompare => {
    const s = sign(direction);
    if (key === "phrase")
      return (a, b) => {
        const x = phrase(a);
        return x === phrase(b) ? 0 : (x ? -1 : 1) * s;
      };
    if (key === "score")
      return (a, b) => {
        const x = columns.scores[a]!;
        const y = columns.scores[b]!;
        return x === y ? 0 : Math.sign(x - y) * s;
      };
    return (a, b) => compareCodeUnits(columns.records[a]!.id, columns.records[b]!.id) * s;
  });
  return (a, b) => {
    for (const key of compare) {
      const order = key(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };
}

/** Slots by id, by code unit: the order recall lists everything in when the query is empty. */
export function idComparator(columns: Pick<RankColumns, "records">): SlotCompare {
  return (a, b) => compareCodeUnits(columns.records[a]!.id, columns.records[b]!.id);
}
