import { PoolIndex, recall } from "@kxm/arbiter";
import type { ContextItem, RecallRequest, RecallResult } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { bytes, currentState, item } from "./helpers.js";

function run(pool: ContextItem[], request: Partial<RecallRequest> = {}): RecallResult {
  const full: RecallRequest = { project: "demo", query: "", ...request };
  const plain = recall(pool, full);
  expect(bytes(new PoolIndex(pool).recall(full))).toBe(bytes(plain));
  return plain;
}

const ids = (result: RecallResult) => result.items.map((hit) => hit.id);

describe("recall", () => {
  test("phrase hits come first, then items sharing a word by BM25, then id; others are left out", () => {
    const pool = [
      item({ id: "word", summary: "Branch protection for release tags" }),
      item({ id: "phrase", summary: "We cut every Release Branch on Monday" }),
      item({ id: "other", summary: "Unrelated note" }),
      item({ id: "both", summary: "release branch release branch release branch" }),
    ];
    expect(ids(run(pool, { query: "release branch" }))).toEqual(["both", "phrase", "word"]);
  });

  test("a phrase hit counts in the state key too, ignoring case", () => {
    const pool = [currentState("s", "Release.Branch", "main"), item({ id: "k", summary: "nothing" })];
    const result = run(pool, { query: "release.BRANCH" });
    expect(ids(result)).toEqual(["s"]);
  });

  test("a phrase hit with no shared token is kept with relevance 0", () => {
    const pool = [item({ id: "a", summary: "see the x-ray" })];
    const result = run(pool, { query: "x-" });
    expect(result.items.map((hit) => hit.relevance)).toEqual([0]);
  });

  test("an empty query returns every item in id order, up to the limit", () => {
    const pool = ["c", "a", "b", "B"].map((id) => item({ id }));
    expect(ids(run(pool))).toEqual(["B", "a", "b", "c"]);
    expect(ids(run(pool, { query: "   " }))).toEqual(["B", "a", "b", "c"]);
    expect(ids(run(pool, { limit: 2 }))).toEqual(["B", "a"]);
  });

  test("the default limit is 25", () => {
    const pool = Array.from({ length: 40 }, (_, i) => item({ id: `i${String(i).padStart(2, "0")}` }));
    expect(run(pool).items).toHaveLength(25);
    expect(run(pool, { limit: 100 }).items).toHaveLength(40);
  });

  test("proposed items are recalled; dead items and skills are not", () => {
    const pool = [
      item({ id: "p", kind: "state", stateKey: "k", status: "proposed", summary: "deploy" }),
      item({ id: "d", status: "superseded", summary: "deploy" }),
      item({ id: "s", kind: "skill", summary: "deploy" }),
      item({ id: "k", summary: "deploy" }),
    ];
    expect(ids(run(pool, { query: "deploy" })).sort()).toEqual(["k", "p"]);
  });

  test("kinds filter the pool before scoring", () => {
    const pool = [
      item({ id: "k", summary: "deploy" }),
      item({ id: "e", kind: "evidence", summary: "deploy" }),
    ];
    expect(ids(run(pool, { query: "deploy", kinds: ["evidence"] }))).toEqual(["e"]);
  });

  test("results carry metadata only, never the summary", () => {
    const pool = [
      item({
        id: "d",
        summary: "derived deploy note",
        provenance: { sourceType: "derived", sourceRef: "summary:1", derivedFrom: ["a", "b"] },
      }),
    ];
    const [hit] = run(pool, { query: "deploy" }).items;
    expect(bytes(hit)).toBe(
      '{"id":"d","kind":"knowledge","authority":"evidence","confidence":"probable","sourceType":"derived","sourceRef":"summary:1","derived":true,"lineageDepth":2,"relevance":0.288}',
    );
  });

  test("no result gives the no-match gap", () => {
    expect(run([item({ id: "a" })], { query: "zebra" })).toEqual({
      items: [],
      unresolvedGaps: ["no matching context records"],
    });
  });

  test("a foreign item refuses recall too", () => {
    expect(() => recall([item({ id: "a", project: "x" })], { project: "demo", query: "" })).toThrow(
      expect.objectContaining({ code: "context_isolation_violation", status: 403 }),
    );
  });

  test.each([
    [{ query: "q".repeat(501) }, "context_limits_exceeded"],
    [{ limit: 0 }, "context_limits_exceeded"],
    [{ limit: 101 }, "context_limits_exceeded"],
    [{ limit: 2.5 }, "context_limits_exceeded"],
    [{ limit: "5" }, "invalid_request"],
  ])("%j is refused with %s", (patch, code) => {
    // Wrong types on purpose: the request comes from outside (a hub body, a tool call).
    const request = { project: "demo", query: "", ...patch } as RecallRequest;
    expect(() => recall([], request)).toThrow(expect.objectContaining({ code }));
  });
});

describe("the index's phrase pre-filter", () => {
  test("finds every substring the plain scan finds, in summaries, state keys and after edits", () => {
    const texts = [
      "The flaky Playwright gate timed out on CI — retries: 2",
      "Über-cache warm-up für die Größe; naïve café",
      "src/cache/index.ts leaks a handle in releaseBranch()",
      "Ｆｕｌｌｗｉｄｔｈ text and 𝒮𝓊𝓇𝓇ℴ𝑔𝒶𝓉ℯ pairs",
    ];
    const pool = texts.map((summary, i) => item({ id: `i${i}`, summary }));
    pool.push(currentState("s", "Release.Branch", "main"));
    const index = new PoolIndex(pool);
    // Queries cut from the texts of `sources`, recalled over `items` by the index and by the plain scan.
    const check = (items: ContextItem[], sources: ContextItem[] = items) => {
      for (const { summary, stateKey } of sources) {
        for (const text of [summary, stateKey ?? ""]) {
          for (let start = 0; start < text.length; start += 3) {
            for (const length of [1, 2, 3, 7]) {
              const query = text.slice(start, start + length).toUpperCase();
              if (query.trim() === "") continue;
              const request = { project: "demo", query };
              expect(bytes(index.recall(request)), query).toBe(bytes(recall(items, request)));
            }
          }
        }
      }
    };
    check(pool);
    // A replaced item's slot is reused: its old text must no longer match, its new text must.
    const edited = [...pool];
    edited[0] = item({ id: "i0", summary: "Completely different words now" });
    index.replace(edited[0]);
    index.remove("i1");
    edited.splice(1, 1);
    index.add(item({ id: "i9", summary: "Retries: the gate timed out again" }));
    edited.push(item({ id: "i9", summary: "Retries: the gate timed out again" }));
    check(edited, [...edited, pool[0]!, pool[1]!]);
    expect(bytes(index.recall({ project: "demo", query: "playwright gate" }))).toBe(
      bytes(recall(edited, { project: "demo", query: "playwright gate" })),
    );
  });
});
