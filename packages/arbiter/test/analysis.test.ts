import { ANALYSES, assemblePacket, PoolIndex, queryTerms, recall, STOPWORDS, tokenize } from "@kxm/arbiter";
import fc from "fast-check";
import { stem } from "porter2";
import { describe, expect, test } from "vitest";
import { expandQuery, FEEDBACK_ITEMS, FEEDBACK_TERMS, FeedbackTop } from "../src/feedback.js";
import { bytes, errorOf, item } from "./helpers.js";

/** The `english` profile step by step: docs/reference/behaviour.md section 1 with Porter2 in place of step 5. */
function englishTokens(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((raw) => raw.length >= 2 && raw.length <= 64 && !STOPWORDS.has(raw))
    .map(stem);
}

const textArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "Running",
        "runs",
        "deployed",
        "DEPLOYING",
        "gates",
        "the",
        "flaky",
        "1990s",
        "naïve",
        "Ünïcode",
      ),
      fc.string({ unit: "grapheme", maxLength: 10 }),
    ),
    { maxLength: 12 },
  )
  .chain((words) => fc.constantFrom(" ", "-", "—", ".", "").map((separator) => words.join(separator)));

describe("the english analysis profile", () => {
  test("stems where the standard profile folds plurals", () => {
    const text = "The flaky Playwright gates timed-out on CI; retries: 2";
    expect(tokenize(text)).toEqual(["flaky", "playwright", "gate", "timed", "out", "ci", "retry"]);
    expect(tokenize(text, "english")).toEqual(["flaki", "playwright", "gate", "time", "out", "ci", "retri"]);
    expect(queryTerms("deploying deployed deploys", "english")).toEqual(["deploy"]);
  });

  test("is the standard steps with Porter2 in place of plural folding, on any text", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(tokenize(text, "english")).toEqual(englishTokens(text));
      }),
      { numRuns: 1_000 },
    );
  });

  test("a task matches the other forms of its words only with the english profile", () => {
    const pool = [item({ id: "a", summary: "We deployed the canary at noon" })];
    const request = { project: "demo", role: "implementer", task: "deploying" } as const;
    const standard = assemblePacket(pool, request);
    const english = assemblePacket(pool, request, { analysis: "english" });
    expect(standard.audit.relevance.matchedCandidates).toBe(0);
    expect(english.audit.relevance.matchedCandidates).toBe(1);
    expect(english.audit.relevance.selected[0]).toBeGreaterThan(0);
    expect(bytes(new PoolIndex(pool, { analysis: "english" }).assemble(request))).toBe(bytes(english));
    const query = { project: "demo", query: "deploying" };
    expect(recall(pool, query).items).toEqual([]);
    expect(recall(pool, query, { analysis: "english" }).items.map((hit) => hit.id)).toEqual(["a"]);
    expect(new PoolIndex(pool, { analysis: "english" }).recall(query).items.map((hit) => hit.id)).toEqual([
      "a",
    ]);
  });

  test("an index keeps its profile and refuses another for one request", () => {
    expect(new PoolIndex().analysis).toBe("standard");
    const index = new PoolIndex([], { analysis: "english" });
    expect(index.analysis).toBe("english");
    const request = { project: "demo", role: "implementer", task: "x" } as const;
    expect(() => index.assemble(request, { analysis: "english" })).not.toThrow();
    const refused = errorOf(() => index.assemble(request, { analysis: "standard" }));
    expect([refused.code, refused.status]).toEqual(["invalid_request", 400]);
    expect(refused.message).toContain('analyses text as "english"');
  });

  test("an unknown profile is refused by every entry point, never read as another", () => {
    const bad = "English" as never;
    const request = { project: "demo", role: "implementer", task: "x" } as const;
    for (const run of [
      () => tokenize("x", bad),
      () => queryTerms("x", bad),
      () => new PoolIndex([], { analysis: bad }),
      () => assemblePacket([], request, { analysis: bad }),
      () => recall([], { project: "demo", query: "x" }, { analysis: bad }),
    ]) {
      const error = errorOf(run);
      expect([error.code, error.message]).toEqual([
        "invalid_request",
        'analysis must be "standard" or "english"',
      ]);
    }
    expect(ANALYSES).toEqual(["standard", "english"]);
  });
});

describe("the english profile's feedback", () => {
  const request = { project: "demo", role: "implementer", task: "transition" } as const;
  const pool = [
    item({ id: "a", summary: "Boundary layer transition on a flat plate" }),
    item({ id: "b", summary: "Transition of the boundary layer on a flat plate in a wind tunnel" }),
    item({ id: "c", summary: "Flat plate boundary layer measured in a wind tunnel" }),
    item({ id: "d", summary: "Rocket nozzle heat transfer" }),
  ];

  test("an item sharing the best items' words enters, below them; the index agrees byte for byte", () => {
    const standard = assemblePacket(pool, request);
    const english = assemblePacket(pool, request, { analysis: "english" });
    expect(standard.audit.selectedIds.slice(0, 2).sort()).toEqual(["a", "b"]);
    expect(standard.audit.relevance.matchedCandidates).toBe(2);
    // "c" holds no task word but the words of "a" and "b"; "d" shares none.
    expect(english.audit.relevance.matchedCandidates).toBe(3);
    expect(english.audit.selectedIds.indexOf("c")).toBe(2);
    expect(english.audit.relevance.taskTokens).toBe(1);
    expect(bytes(new PoolIndex(pool, { analysis: "english" }).assemble(request))).toBe(bytes(english));
    // Feedback is a packet's: recall finds the items that hold the query's words.
    const hits = recall(pool, { project: "demo", query: "transition" }, { analysis: "english" }).items;
    expect(hits.map((hit) => hit.id).sort()).toEqual(["a", "b"]);
  });

  test("weights: each item's share of the summed score times a word's frequency over the item's length", () => {
    const { terms, weights } = expandQuery(
      ["x"],
      [
        {
          id: "b",
          score: 1,
          length: 2,
          tf: new Map([
            ["x", 1],
            ["z", 1],
          ]),
        },
        {
          id: "a",
          score: 2,
          length: 4,
          tf: new Map([
            ["x", 2],
            ["y", 2],
          ]),
        },
      ],
    );
    // x: 2/3 * 2/4 + 1/3 * 1/2 = 1/2; y: 2/3 * 2/4 = 1/3; z: 1/3 * 1/2 = 1/6; their mass is 1, one task term.
    expect(terms).toEqual(["x", "y", "z"]);
    expect(weights.map((w) => Math.round(w * 1e12) / 1e12)).toEqual([1.5, 0.333333333333, 0.166666666667]);
    expect(expandQuery(["x", "y"], [])).toEqual({ terms: ["x", "y"], weights: [1, 1] });
  });

  test("at most FEEDBACK_TERMS words, ties by code unit; at most FEEDBACK_ITEMS items, ties by id", () => {
    const words = Array.from({ length: 14 }, (_, n) => `w${String(n).padStart(2, "0")}`);
    const { terms } = expandQuery(
      ["q"],
      [{ id: "a", score: 1, length: 15, tf: new Map([...[...words].reverse(), "q"].map((w) => [w, 1])) }],
    );
    expect(terms).toEqual(["q", ...words.slice(0, FEEDBACK_TERMS - 1)]);
    const top = new FeedbackTop<number>();
    for (let n = 0; n < 12; n += 1) top.offer(`i${n % 10}-${n}`, n < 6 ? 1 : 2, n);
    top.offer("never", 0, -1);
    expect(top.items).toHaveLength(FEEDBACK_ITEMS);
    // Score 2 first ("i0-10" and "i1-11" before "i6-6" by code unit), then the first ids of score 1.
    expect(top.items.map((kept) => kept.of)).toEqual([10, 11, 6, 7, 8, 9, 0, 1, 2, 3]);
  });
});
