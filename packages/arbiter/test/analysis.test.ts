import { ANALYSES, assemblePacket, PoolIndex, queryTerms, recall, STOPWORDS, tokenize } from "@kxm/arbiter";
import fc from "fast-check";
import { stem } from "porter2";
import { describe, expect, test } from "vitest";
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
