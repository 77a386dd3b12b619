import { compareCodeUnits } from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  compareRankKeys,
  compareRecallKeys,
  type OrderKey,
  partsInOrder,
  RANK_ORDER,
  type RankKey,
  type RankKeys,
  RECALL_ORDER,
  type RecallKeys,
  unwalkableOrder,
} from "../src/rank.js";

// The ranking orders are data (rank.ts): both the plain functions and PoolIndex read them, and the equality of the
// two paths is checked everywhere else (assemble.test.ts, properties.test.ts). Here: that the data says what the
// guide says, that the comparators built from it are the guide's, and which orders the index can walk.

/** The guide's nine keys written out by hand (docs/reference/behaviour.md section 2 step 4). */
function guideOrder(a: RankKeys, b: RankKeys): number {
  if (a.contradiction !== b.contradiction) return a.contradiction ? -1 : 1;
  if (a.shared !== b.shared) return a.shared ? 1 : -1;
  if (a.score > 0 !== b.score > 0) return a.score > 0 ? -1 : 1;
  if (a.kindIndex !== b.kindIndex) return a.kindIndex - b.kindIndex;
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.confidence !== b.confidence) return a.confidence - b.confidence;
  if (a.authority !== b.authority) return a.authority - b.authority;
  if (a.time !== b.time) return a.time > b.time ? -1 : 1;
  return compareCodeUnits(a.id, b.id);
}

const rankKeys: fc.Arbitrary<RankKeys> = fc.record({
  id: fc.constantFrom("a", "b", "B", "a-1", "é"),
  contradiction: fc.boolean(),
  shared: fc.boolean(),
  kindIndex: fc.integer({ min: 0, max: 5 }),
  score: fc.constantFrom(0, 0.5, 1.25, 3),
  confidence: fc.integer({ min: 0, max: 2 }),
  authority: fc.integer({ min: 0, max: 3 }),
  time: fc.constantFrom(Number.NEGATIVE_INFINITY, 0, 1_790_000_000_000, 1_790_000_000_001),
});

const recallKeys: fc.Arbitrary<RecallKeys> = fc.record({
  item: fc.record({ id: fc.constantFrom("a", "b", "B", "é") }),
  phrase: fc.boolean(),
  score: fc.constantFrom(0, 0.5, 3),
});

describe("the ranking orders", () => {
  test("RANK_ORDER is the guide's nine keys, and PoolIndex can walk it", () => {
    expect(RANK_ORDER.map(({ key }) => key)).toEqual([
      "contradiction",
      "shared",
      "matched",
      "kind",
      "score",
      "confidence",
      "authority",
      "time",
      "id",
    ]);
    expect(unwalkableOrder(RANK_ORDER)).toBeUndefined();
    expect(RECALL_ORDER.map(({ key }) => key)).toEqual(["phrase", "score", "id"]);
  });

  test("compareRankKeys built from RANK_ORDER orders any two candidates as the guide does", () => {
    fc.assert(
      fc.property(rankKeys, rankKeys, (a, b) => {
        expect(Math.sign(compareRankKeys(a, b))).toBe(Math.sign(guideOrder(a, b)));
      }),
      { numRuns: 2_000 },
    );
  });

  test("compareRecallKeys puts phrase hits first, then the higher score, then the id", () => {
    fc.assert(
      fc.property(recallKeys, recallKeys, (a, b) => {
        const expected =
          a.phrase !== b.phrase
            ? a.phrase
              ? -1
              : 1
            : a.score !== b.score
              ? a.score > b.score
                ? -1
                : 1
              : compareCodeUnits(a.item.id, b.item.id);
        expect(Math.sign(compareRecallKeys(a, b))).toBe(Math.sign(expected));
      }),
      { numRuns: 1_000 },
    );
  });

  test("the parts of a pool follow the order: its splitting keys nested as listed, each in its direction", () => {
    const parts = partsInOrder(RANK_ORDER, 2);
    // 2 x 2 x 2 x (2 requested kinds + the unlisted ones).
    expect(parts).toHaveLength(24);
    expect(parts[0]).toEqual({ contradiction: true, shared: false, matched: true, kind: 0 });
    expect(parts[1]).toEqual({ contradiction: true, shared: false, matched: true, kind: 1 });
    expect(parts[2]).toEqual({ contradiction: true, shared: false, matched: true, kind: 2 });
    expect(parts[3]).toEqual({ contradiction: true, shared: false, matched: false, kind: 0 });
    expect(parts.at(-1)).toEqual({ contradiction: false, shared: true, matched: false, kind: 2 });
    // Another walkable order splits the other way round: the kind outermost, descending; shared items first.
    const other: OrderKey<RankKey>[] = [
      { key: "kind", direction: "descending", meaning: "" },
      { key: "shared", direction: "true-first", meaning: "" },
      ...RANK_ORDER.filter(({ key }) => key !== "kind" && key !== "shared"),
    ];
    expect(unwalkableOrder(other)).toBeUndefined();
    const walked = partsInOrder(other, 1);
    expect(walked.slice(0, 2)).toEqual([
      { kind: 1, shared: true, contradiction: true, matched: true },
      { kind: 1, shared: true, contradiction: true, matched: false },
    ]);
    expect(walked.at(-1)).toEqual({ kind: 0, shared: false, contradiction: false, matched: false });
  });

  test("an order the index cannot walk is named with why", () => {
    const keys = (...names: RankKey[]) =>
      names.map((key) => RANK_ORDER.find((entry) => entry.key === key)!) as OrderKey<RankKey>[];
    expect(
      unwalkableOrder(
        keys("contradiction", "shared", "matched", "score", "kind", "confidence", "authority", "time", "id"),
      ),
    ).toBe("the first 4 keys must be contradiction, shared, matched, kind, in any order");
    expect(
      unwalkableOrder(
        keys("contradiction", "shared", "matched", "kind", "confidence", "score", "authority", "time", "id"),
      ),
    ).toBe("the score, highest first, must follow the keys that split the pool");
    expect(
      unwalkableOrder(
        keys("contradiction", "shared", "matched", "kind", "score", "confidence", "authority", "id", "time"),
      ),
    ).toBe("the id must be the last key");
    expect(
      unwalkableOrder([
        ...keys("contradiction", "shared", "matched", "kind", "score", "confidence", "authority", "time"),
        { key: "id", direction: "ascending", meaning: "" },
      ]),
    ).toBe("key id cannot go ascending");
  });
});
