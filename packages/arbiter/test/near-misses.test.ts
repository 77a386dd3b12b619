import { assemblePacket, PoolIndex, type WithheldItem } from "@kxm/arbiter";
import type { AssembledPacket, ContextItem, ContextRequest } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import type { AssembleOptions } from "../src/packet.js";
import { bytes, errorOf, item } from "./helpers.js";

/** The plain function and the index, insisting they agree, so every expectation below holds for both. */
function assemble(
  pool: ContextItem[],
  request: Partial<ContextRequest>,
  options: AssembleOptions = {},
): AssembledPacket {
  const full: ContextRequest = { project: "demo", role: "planner", task: "", ...request };
  const plain = assemblePacket(pool, full, options);
  const index = new PoolIndex(pool);
  expect(bytes(index.assemble(full, options))).toBe(bytes(plain));
  // A second call on the same index (its scratch reused) gives the same bytes.
  expect(bytes(index.assemble(full, options))).toBe(bytes(plain));
  return plain;
}

/** BM25's weight of one term, written out: k1 1.2, b 0.75. */
function weight(idf: number, tf: number, length: number, avgLength: number): number {
  return (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / avgLength));
}
const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
const round = (score: number) => Math.round(score * 1000) / 1000;

describe("near misses", () => {
  test("kind not requested, inert, superseded and withheld items, each scored as one more document", () => {
    const pool = [
      item({ id: "k1", summary: "alpha beta" }),
      item({ id: "z", summary: "delta" }),
      item({ id: "e1", kind: "episode", summary: "alpha" }),
      item({ id: "n1", kind: "episode", summary: "delta" }),
      item({ id: "s1", kind: "state", status: "proposed", summary: "alpha", stateKey: "alpha" }),
      item({ id: "d1", status: "superseded", summary: "alpha gamma" }),
    ];
    const withheld: WithheldItem[] = [
      { item: item({ id: "w1", summary: "alpha" }), reason: "revoked" },
      { item: item({ id: "w2", summary: "epsilon" }), reason: "expired" },
    ];
    const { audit } = assemble(pool, { task: "alpha", includeKinds: ["knowledge", "state"] }, { withheld });
    expect(audit.selectedIds).toEqual(["k1", "z"]);
    // The eligible set is k1 (2 tokens) and z (1 token): N = 2, 3 tokens in all, df(alpha) = 1. Each other item is
    // a third document: idf(3, 2), the average length (3 + its length) / 3.
    const one = weight(idf(3, 2), 1, 1, 4 / 3); // e1, w1: "alpha", 1 token
    const stateKeyed = weight(idf(3, 2), 2, 2, 5 / 3); // s1: "alpha" and its state key "alpha"
    const superseded = weight(idf(3, 2), 1, 2, 5 / 3); // d1: "alpha gamma"
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: a rounded BM25 score, not log10(e)
    expect([round(stateKeyed), round(one), round(superseded)]).toEqual([0.612, 0.524, 0.434]);
    // n1 and w2 share no token with the task: no near misses. e1 and w1 tie: the id decides.
    expect(audit.nearMisses).toEqual([
      { id: "s1", kind: "state", reason: "inert", score: 0.612, tokens: 3 },
      { id: "e1", kind: "episode", reason: "kind_not_requested", score: 0.524, tokens: 4 },
      { id: "w1", kind: "knowledge", reason: "revoked", score: 0.524, tokens: 4 },
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: a rounded BM25 score, not log10(e)
      { id: "d1", kind: "knowledge", reason: "superseded", score: 0.434, tokens: 6 },
    ]);
  });

  test("an eligible item offered and not taken is over_budget, with its own score and cost", () => {
    const big = item({ id: "big", summary: `alpha ${"q".repeat(2100)}` });
    const pool = [item({ id: "a", summary: "alpha beta" }), big];
    // 512 tokens hold 2,048 characters; big costs 2,106 + 3 + 9 = 2,118 (its long run of q is no token).
    const { audit } = assemble(pool, { task: "alpha", budgetTokens: 512, includeKinds: ["knowledge"] });
    expect(audit.selectedIds).toEqual(["a"]);
    expect(round(weight(idf(2, 2), 1, 1, 1.5))).toBe(0.211);
    expect(audit.nearMisses).toEqual([
      { id: "big", kind: "knowledge", reason: "over_budget", score: 0.211, tokens: 530 },
    ]);
  });

  test("items never offered because 256 were selected are item_limit; at most 8, by score then id", () => {
    const many = Array.from({ length: 270 }, (_, n) =>
      item({ id: `i${String(n).padStart(3, "0")}`, summary: "alpha" }),
    );
    // Offered after i050 (the id decides among equal keys), when 51 items of 18 characters left 4,800 - 918 =
    // 3,882 characters: deferred before the limit is reached, so over_budget, though it scores the same.
    const big = item({ id: "i050b", summary: `alpha ${"q".repeat(3990)}` });
    const { audit } = assemble([...many, big], { task: "alpha", budgetTokens: 1200 });
    expect(audit.selectedIds).toHaveLength(256);
    const score = round(weight(idf(271, 271), 1, 1, 1));
    expect(audit.nearMisses).toEqual([
      { id: "i050b", kind: "knowledge", reason: "over_budget", score, tokens: 1003 },
      ...["i256", "i257", "i258", "i259", "i260", "i261", "i262"].map((id) => ({
        id,
        kind: "knowledge",
        reason: "item_limit",
        score,
        tokens: 5,
      })),
    ]);
  });

  test("deferred by the early stop is over_budget; the score orders them whatever the reason", () => {
    // Each costs about 1,000 tokens: the budget of 1,200 takes one, and the walk stops with nothing left to fit.
    const long = (id: string, words: string, extra: Partial<ContextItem> = {}) =>
      item({ id, summary: `${words} ${"q".repeat(3990 - words.length)}`, ...extra });
    const pool = [
      long("a", "alpha alpha alpha"),
      long("b", "alpha"),
      long("c", "alpha alpha"),
      long("s", "alpha alpha alpha alpha", { status: "rejected" }),
    ];
    const { audit } = assemble(pool, { task: "alpha", budgetTokens: 1200, includeKinds: ["knowledge"] });
    expect(audit.selectedIds).toEqual(["a"]);
    // Eligible: a, b, c of 3, 1 and 2 tokens (average 2), each holding alpha; s is a fourth document of 4 tokens.
    const scores = [
      weight(idf(3, 3), 2, 2, 2),
      weight(idf(3, 3), 1, 1, 2),
      weight(idf(4, 4), 4, 4, 10 / 4),
    ].map(round);
    expect(scores).toEqual([0.184, 0.168, 0.162]);
    expect(audit.nearMisses.map(({ id, reason, score }) => [id, reason, score])).toEqual([
      ["c", "over_budget", 0.184],
      ["b", "over_budget", 0.168],
      ["s", "superseded", 0.162],
    ]);
  });

  test("an open contradiction is eligible, never a near miss of its kind; a dead one is superseded", () => {
    const pool = [
      item({ id: "c1", kind: "episode", summary: "alpha" }),
      item({ id: "c2", kind: "episode", summary: "alpha", status: "superseded" }),
    ];
    const { audit } = assemble(
      pool,
      { task: "alpha", includeKinds: ["knowledge"] },
      { contradictionIds: ["c1", "c2"] },
    );
    expect(audit.selectedIds).toEqual(["c1"]);
    expect(audit.nearMisses.map(({ id, reason }) => [id, reason])).toEqual([["c2", "superseded"]]);
  });

  test("no shared token, no near miss; the list is always present", () => {
    const pool = [item({ id: "a", summary: "alpha" }), item({ id: "b", kind: "episode", summary: "beta" })];
    expect(assemble(pool, { task: "" }).audit.nearMisses).toEqual([]);
    expect(assemble(pool, { task: "gamma", includeKinds: ["knowledge"] }).audit.nearMisses).toEqual([]);
    const keys = Object.keys(assemble(pool, { task: "beta" }).audit);
    expect(keys.slice(keys.indexOf("relevance"))).toEqual(["relevance", "nearMisses"]);
  });

  test("withheld items are checked: the project, a known reason, and no id twice", () => {
    const request: ContextRequest = { project: "demo", role: "planner", task: "alpha" };
    const pool = [item({ id: "a", summary: "alpha" })];
    const cases: [WithheldItem[], string][] = [
      [[{ item: item({ id: "x", project: "other" }), reason: "revoked" }], "context_isolation_violation"],
      [[{ item: item({ id: "a" }), reason: "revoked" }], "invalid_request"],
      [
        [
          { item: item({ id: "x" }), reason: "revoked" },
          { item: item({ id: "x" }), reason: "expired" },
        ],
        "invalid_request",
      ],
      [[{ item: item({ id: "x" }), reason: "stale" as WithheldItem["reason"] }], "invalid_request"],
    ];
    for (const [withheld, code] of cases) {
      expect(errorOf(() => assemblePacket(pool, request, { withheld })).code).toBe(code);
      expect(errorOf(() => new PoolIndex(pool).assemble(request, { withheld })).code).toBe(code);
    }
    const shared = {
      item: item({ id: "x", project: "_shared", summary: "alpha" }),
      reason: "forgotten" as const,
    };
    expect(assemble(pool, { task: "alpha" }, { withheld: [shared] }).audit.nearMisses[0]?.reason).toBe(
      "forgotten",
    );
  });
});
