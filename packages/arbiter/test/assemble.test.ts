import { assemblePacket, PoolIndex } from "@kxm/arbiter";
import type { AssembledPacket, ContextItem, ContextRequest } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import type { AssembleOptions } from "../src/packet.js";
import { bytes, currentState, errorOf, item } from "./helpers.js";

/** Runs the plain function and the index and insists they agree, so every rule below tests both. */
function assemble(pool: ContextItem[], request: Partial<ContextRequest> = {}, options: AssembleOptions = {}) {
  const full: ContextRequest = { project: "demo", role: "planner", task: "", ...request };
  const plain = assemblePacket(pool, full, options);
  expect(bytes(new PoolIndex(pool).assemble(full, options))).toBe(bytes(plain));
  return plain;
}

function ids(result: AssembledPacket): string[] {
  return result.audit.selectedIds;
}

describe("isolation", () => {
  test("a foreign item refuses the whole request with 403 context_isolation_violation", () => {
    const pool = [item({ id: "a" }), item({ id: "b", project: "other", status: "superseded" })];
    for (const run of [
      () => assemblePacket(pool, { project: "demo", role: "planner", task: "" }),
      () => new PoolIndex(pool).assemble({ project: "demo", role: "planner", task: "" }),
    ]) {
      const error = errorOf(run);
      expect(error.code).toBe("context_isolation_violation");
      expect(error.status).toBe(403);
    }
  });

  test("_shared defaults are allowed and rank after the project's own records", () => {
    const pool = [item({ id: "a", project: "_shared" }), item({ id: "b" })];
    expect(ids(assemble(pool))).toEqual(["b", "a"]);
  });

  test("a pool with a repeated id is refused rather than ordered arbitrarily", () => {
    const error = errorOf(() =>
      assemblePacket([item({ id: "a" }), item({ id: "a" })], { project: "demo", role: "planner", task: "" }),
    );
    expect(error.code).toBe("invalid_request");
  });
});

describe("eligibility", () => {
  test("superseded and rejected items are dropped and counted", () => {
    const pool = [
      item({ id: "a", status: "superseded" }),
      item({ id: "b", status: "rejected" }),
      currentState("c", "k", "Value"),
    ];
    const result = assemble(pool);
    expect(ids(result)).toEqual(["c"]);
    expect(result.audit.excludedSuperseded).toBe(2);
    expect(result.audit.candidateCount).toBe(1);
  });

  test("proposed state and proposed skills are inert: never selected, never counted as candidates", () => {
    const pool = [
      item({ id: "p", kind: "state", stateKey: "k", status: "proposed" }),
      item({ id: "s", kind: "skill", status: "proposed" }),
      item({ id: "t", kind: "skill" }),
    ];
    const result = assemble(pool, { role: "implementer" });
    expect(ids(result)).toEqual(["t"]);
    expect(result.audit.candidateCount).toBe(1);
    expect(result.packet.unresolvedGaps).toEqual([]);
  });

  test("only the requested kinds are eligible: the role's kinds, or includeKinds", () => {
    const pool = [item({ id: "k" }), item({ id: "e", kind: "episode" }), item({ id: "s", kind: "skill" })];
    expect(ids(assemble(pool, { role: "planner" }))).toEqual(["k"]);
    expect(ids(assemble(pool, { role: "planner", includeKinds: ["skill", "episode"] }))).toEqual(["s", "e"]);
  });

  test("an open contradiction is eligible whatever its kind or status, ranks first, in its own section", () => {
    const pool = [
      item({ id: "k" }),
      item({ id: "p1", kind: "state", stateKey: "release.branch", status: "proposed", summary: "main" }),
      item({ id: "p2", kind: "state", stateKey: "release.branch", status: "proposed", summary: "trunk" }),
      item({ id: "dead", status: "superseded" }),
    ];
    const result = assemble(pool, { role: "critic" }, { contradictionIds: ["p2", "p1", "dead", "missing"] });
    expect(ids(result)).toEqual(["p1", "p2", "k"]);
    expect(result.packet.contradictions.map((entry) => entry.id)).toEqual(["p1", "p2"]);
    expect(result.packet.knowledge.map((entry) => entry.id)).toEqual(["k"]);
    expect(result.audit.candidateCount).toBe(3);
  });
});

describe("the nine ranking keys", () => {
  test("3. task-matched items come before unmatched ones, whatever their kind", () => {
    const pool = [
      currentState("s", "deploy.window", "Weekdays only"),
      item({ id: "k", summary: "Canary rollout" }),
    ];
    expect(ids(assemble(pool, { task: "canary" }))).toEqual(["k", "s"]);
    expect(ids(assemble(pool, { task: "" }))).toEqual(["s", "k"]);
  });

  test("4. kind priority follows the requested kinds", () => {
    const pool = [item({ id: "e", kind: "evidence" }), item({ id: "k" }), currentState("s", "x", "y")];
    expect(ids(assemble(pool, { role: "planner" }))).toEqual(["s", "k", "e"]);
    expect(ids(assemble(pool, { role: "verifier" }))).toEqual(["e", "k"]);
  });

  test("5. BM25 orders matched items of one kind, most relevant first", () => {
    const pool = [
      item({ id: "a", summary: "flaky playwright gates on ci" }),
      item({ id: "b", summary: "playwright playwright playwright" }),
      item({ id: "c", summary: "nothing to see" }),
    ];
    const result = assemble(pool, { task: "playwright" });
    expect(ids(result)).toEqual(["b", "a", "c"]);
    const [first, second, third] = result.audit.relevance.selected;
    expect(first).toBeGreaterThan(second!);
    expect(third).toBe(0);
    expect(result.audit.relevance.matchedCandidates).toBe(2);
  });

  test("6. confidence: verified, probable, uncertain", () => {
    const pool = [
      item({ id: "u", confidence: "uncertain" }),
      item({ id: "v", confidence: "verified" }),
      item({ id: "p", confidence: "probable" }),
    ];
    expect(ids(assemble(pool))).toEqual(["v", "p", "u"]);
  });

  test("7. authority: policy, instruction, evidence, hypothesis", () => {
    const human = { sourceType: "human" as const };
    const pool = [
      item({ id: "h", authority: "hypothesis", provenance: human }),
      item({ id: "e", authority: "evidence", provenance: human }),
      item({ id: "p", authority: "policy", provenance: human }),
      item({ id: "i", authority: "instruction", provenance: human }),
    ];
    expect(ids(assemble(pool))).toEqual(["p", "i", "e", "h"]);
  });

  test("8. recency: the later of observedAt and validFrom, newest first; neither is oldest", () => {
    const pool = [
      item({ id: "none" }),
      item({ id: "old", observedAt: "2026-01-01T00:00:00Z" }),
      item({ id: "mixed", observedAt: "2025-01-01T00:00:00Z", validFrom: "2026-06-01T00:00:00Z" }),
      item({ id: "offset", observedAt: "2026-03-01T02:00:00+03:00" }),
    ];
    expect(ids(assemble(pool))).toEqual(["mixed", "offset", "old", "none"]);
  });

  test("9. ties end at the id, by UTF-16 code unit, never locale order", () => {
    const pool = [
      item({ id: "b" }),
      item({ id: "a" }),
      item({ id: "B" }),
      item({ id: "é" }),
      item({ id: "Z" }),
    ];
    expect(ids(assemble(pool))).toEqual(["B", "Z", "a", "b", "é"]);
  });
});

describe("budget and gaps", () => {
  const big = (id: string, chars: number) => item({ id, summary: "x".repeat(chars) });

  test("first-fit skips an item that does not fit and keeps filling with smaller ones", () => {
    // Budget 512 tokens = 2048 characters. Each cost = summary + id (1) + kind (9).
    const pool = [
      { ...big("a", 1500), confidence: "verified" as const },
      { ...big("b", 1000), confidence: "probable" as const },
      { ...big("c", 400), confidence: "uncertain" as const },
    ];
    const result = assemble(pool, { budgetTokens: 512 });
    expect(ids(result)).toEqual(["a", "c"]);
    expect(result.packet.unresolvedGaps).toEqual(["budget of 512 tokens reached; 1 candidates deferred"]);
    expect(result.packet.estimatedTokens).toBe(Math.ceil((1510 + 410) / 4));
  });

  test("when no item left could fit, every remaining eligible item is still counted as deferred", () => {
    // Each item costs about 1,010 characters; 512 tokens hold 2,048, so after two the room is below any cost.
    const pool = Array.from({ length: 10 }, (_, i) => big(`i${i}`, 1000));
    const result = assemble(pool, { budgetTokens: 512 });
    expect(ids(result)).toEqual(["i0", "i1"]);
    expect(result.packet.unresolvedGaps).toEqual(["budget of 512 tokens reached; 8 candidates deferred"]);
  });

  test("the estimate is one ceiling over the whole set, not a sum of ceilings", () => {
    const pool = [item({ id: "a", summary: "ab" }), item({ id: "b", summary: "ab" })];
    // 12 + 12 characters give 6 tokens either way; 13 + 13 give 7 over the set, where per-item ceilings give 8.
    const odd = [item({ id: "a", summary: "abc" }), item({ id: "b", summary: "abc" })];
    expect(assemble(pool).packet.estimatedTokens).toBe(6);
    expect(assemble(odd).packet.estimatedTokens).toBe(7);
  });

  test("a source reference counts against the budget", () => {
    const pool = [
      item({ id: "a", summary: "ab", provenance: { sourceType: "git", sourceRef: "docs/x.md" } }),
    ];
    expect(assemble(pool).packet.estimatedTokens).toBe(Math.ceil((2 + 1 + 9 + 9) / 4));
  });

  test("nothing fits: the cannot-fit gap", () => {
    const result = assemble([big("a", 3000)], { budgetTokens: 512 });
    expect(ids(result)).toEqual([]);
    expect(result.packet.unresolvedGaps).toEqual(["budget of 512 tokens cannot fit any selected context"]);
  });

  test("an empty pool: the empty-pool gap", () => {
    expect(assemble([]).packet.unresolvedGaps).toEqual(["no context records exist for this project yet"]);
  });

  test("a pool with only dead records is empty; one with only inert proposals is not, and has no gap", () => {
    expect(assemble([item({ id: "a", status: "rejected" })]).packet.unresolvedGaps).toEqual([
      "no context records exist for this project yet",
    ]);
    const proposal = item({ id: "p", kind: "state", stateKey: "k", status: "proposed" });
    expect(assemble([proposal]).packet.unresolvedGaps).toEqual([]);
  });

  test("256 items at most, with the limit gap after the budget gap", () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      item({ id: `i${String(i).padStart(3, "0")}`, summary: "tiny" }),
    );
    const withBig = [{ ...big("a", 9000), confidence: "verified" as const }, ...many];
    const result = assemble(withBig, { budgetTokens: 200_000 });
    expect(result.audit.selectedIds).toHaveLength(256);
    expect(result.packet.unresolvedGaps).toEqual(["context item limit reached; refine the task or kinds"]);
    const tight = assemble(withBig, { budgetTokens: 2_000 });
    expect(tight.audit.selectedIds).toHaveLength(256);
    expect(tight.packet.unresolvedGaps).toEqual([
      "budget of 2000 tokens reached; 1 candidates deferred",
      "context item limit reached; refine the task or kinds",
    ]);
  });

  test("the role's default budget applies unless the request sets one", () => {
    const budgets = Object.fromEntries(
      ["repro", "planner", "critic", "implementer", "verifier", "release-manager"].map((role) => [
        role,
        assemble([], { role }).packet.budgetTokens,
      ]),
    );
    expect(budgets).toEqual({
      repro: 8000,
      planner: 16000,
      critic: 12000,
      implementer: 16000,
      verifier: 8000,
      "release-manager": 32000,
    });
    expect(assemble([], { budgetTokens: 600 }).audit.budgetTokens).toBe(600);
  });
});

describe("sections, summary and audit", () => {
  test("every selected item lands in exactly one section, in rank order", () => {
    const pool = [
      currentState("s", "k", "value"),
      item({ id: "k" }),
      item({ id: "e", kind: "evidence" }),
      item({ id: "p", kind: "episode" }),
      item({ id: "sk", kind: "skill", provenance: { sourceType: "git", sourceRef: "skill:x@y" } }),
    ];
    const { packet } = assemble(pool, { role: "implementer" });
    expect(packet.currentState.map((i) => i.id)).toEqual(["s"]);
    expect(packet.knowledge.map((i) => i.id)).toEqual(["k"]);
    expect(packet.evidence.map((i) => i.id)).toEqual(["e"]);
    expect(packet.episodes.map((i) => i.id)).toEqual(["p"]);
    expect(packet.skills.map((i) => i.id)).toEqual(["sk"]);
    expect(packet.contradictions).toEqual([]);
  });

  test("provenanceSummary counts selected items by origin, keys in first-seen order", () => {
    const pool = [
      item({ id: "a", confidence: "verified", provenance: { sourceType: "workflow" } }),
      item({ id: "b", provenance: { sourceType: "git" } }),
      item({ id: "c", confidence: "uncertain", provenance: { sourceType: "workflow" } }),
    ];
    expect(bytes(assemble(pool).packet.provenanceSummary)).toBe('{"workflow":2,"git":1}');
  });

  test("the audit echoes the request in a fixed key order, task included", () => {
    const request = {
      stage: "plan",
      includeKinds: ["knowledge" as const],
      task: "Ship it",
      runId: "run_1",
      budgetTokens: 1000,
      role: "planner",
      project: "demo",
    };
    expect(bytes(assemble([], request).audit.request)).toBe(
      '{"project":"demo","role":"planner","task":"Ship it","budgetTokens":1000,"includeKinds":["knowledge"],"runId":"run_1","stage":"plan"}',
    );
  });

  test("workingState is carried through unchanged and defaults to an empty object", () => {
    expect(assemble([]).packet.workingState).toEqual({});
    const workingState = { step: 2, notes: ["a"], done: false };
    expect(assemble([], {}, { workingState }).packet.workingState).toEqual(workingState);
  });

  test("taskTokens counts distinct task tokens", () => {
    expect(assemble([], { task: "deploy the deploy pipeline to staging" }).audit.relevance.taskTokens).toBe(
      3,
    );
  });
});

describe("request validation", () => {
  test.each([
    [{ task: "x".repeat(2001) }, "context_limits_exceeded"],
    [{ budgetTokens: 511 }, "context_limits_exceeded"],
    [{ budgetTokens: 200_001 }, "context_limits_exceeded"],
    [{ budgetTokens: 1000.5 }, "context_limits_exceeded"],
    [{ budgetTokens: "1000" }, "invalid_request"],
    [{ role: "r".repeat(65) }, "context_limits_exceeded"],
    [{ role: "" }, "invalid_request"],
    [{ includeKinds: [] }, "context_limits_exceeded"],
    [{ includeKinds: ["knowledge", "knowledge"] }, "context_limits_exceeded"],
    [{ includeKinds: ["memory"] }, "invalid_request"],
    [{ project: "" }, "invalid_request"],
    [{ extra: true }, "invalid_request"],
  ])("%j is refused with %s", (patch, code) => {
    const request = { project: "demo", role: "planner", task: "", ...patch } as ContextRequest;
    expect(errorOf(() => assemblePacket([], request)).code).toBe(code);
    expect(errorOf(() => new PoolIndex().assemble(request)).code).toBe(code);
  });

  test("2,000 characters of task and the budget bounds are accepted", () => {
    expect(() => assemble([], { task: "x".repeat(2000), budgetTokens: 512 })).not.toThrow();
    expect(() => assemble([], { budgetTokens: 200_000 })).not.toThrow();
  });
});

describe("a large vocabulary", () => {
  test("term counts survive the index's buffers growing in the middle of an item", () => {
    // The first item fills the dictionary to just below the index's initial buffer of 1,024 terms; the second brings
    // 40 new terms, so the buffer grows while it is being counted, and repeats some of them after the growth. A
    // count lost in the growth shows as a wrong score or matched count.
    const word = (n: number) => `w${n.toString(36)}x`;
    const first = Array.from({ length: 1_020 }, (_, n) => word(n)).join(" ");
    const fresh = Array.from({ length: 40 }, (_, n) => word(2_000 + n));
    const second = [word(3), ...fresh, fresh[10], fresh[30], fresh[10], word(3)].join(" ");
    const pool = [item({ id: "a", summary: first }), item({ id: "b", summary: second })];
    const packet = assemble(pool, { task: `${fresh[10]} ${fresh[30]} ${fresh[39]}` });
    expect(packet.audit.relevance.matchedCandidates).toBe(1);
    expect(packet.audit.selectedIds).toEqual(["b", "a"]);
  });
});

describe("an item too long to pack", () => {
  test("an item of 2^15 tokens or more scores as the plain function scores it", () => {
    // The index packs an item's length beside each term frequency when the length is below 2^15 tokens (every item
    // within the contract's limits); a longer one, such as a caller's unvalidated item, is read by slot instead.
    const huge = `${"ab ".repeat(40_000)}cd cd`;
    const pool = [
      item({ id: "huge", summary: huge }),
      item({ id: "small", summary: "ab cd ef" }),
      item({ id: "none", summary: "zz" }),
    ];
    const packet = assemble(pool, { task: "ab cd", budgetTokens: 100_000 });
    expect(packet.audit.relevance.matchedCandidates).toBe(2);
    expect(packet.audit.selectedIds).toEqual(["small", "huge", "none"]);
  });
});

describe("phase timings", () => {
  test("an index fills the phases it is given, and the packet's bytes do not change", () => {
    const pool = [
      item({ id: "a", summary: "release branch protection" }),
      currentState("s", "release.branch", "main"),
      item({ id: "b", summary: "unrelated" }),
    ];
    const index = new PoolIndex(pool);
    const request: ContextRequest = { project: "demo", role: "implementer", task: "release branch" };
    const phases = { tokenizeMs: -1, scoreMs: -1, sortMs: -1, fillMs: -1 };
    const timed = index.assemble(request, { phases, now: () => performance.now(), contradictionIds: ["s"] });
    expect(bytes(timed)).toBe(bytes(index.assemble(request, { contradictionIds: ["s"] })));
    expect(bytes(timed)).toBe(bytes(assemblePacket(pool, request, { contradictionIds: ["s"] })));
    for (const ms of Object.values(phases)) {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(1_000);
    }
  });

  test("the phases are measured on the clock the caller passes, and only on it", () => {
    const pool = [
      item({ id: "a", summary: "release branch protection" }),
      item({ id: "b", summary: "unrelated" }),
    ];
    const index = new PoolIndex(pool);
    const request: ContextRequest = { project: "demo", role: "implementer", task: "release branch" };
    // A clock that advances one millisecond per reading: every phase is a whole number of readings.
    let readings = 0;
    const now = (): number => {
      readings += 1;
      return readings;
    };
    const phases = { tokenizeMs: -1, scoreMs: -1, sortMs: -1, fillMs: -1 };
    const timed = index.assemble(request, { phases, now });
    expect(bytes(timed)).toBe(bytes(assemblePacket(pool, request)));
    expect(phases.tokenizeMs).toBe(1);
    expect(readings).toBeGreaterThan(2);
    const total = phases.tokenizeMs + phases.scoreMs + phases.sortMs + phases.fillMs;
    // From the first reading to the last: tokenize, then scoring, sorting and the fill account for every lap.
    expect(total).toBe(readings - 1);
    for (const ms of Object.values(phases)) expect(Number.isInteger(ms) && ms >= 0).toBe(true);
  });
});

describe("the index's walk after an item does not fit", () => {
  // Every item holds one token, "alpha", padded with dashes (separators, not tokens) to the cost wanted, so all
  // score alike and rank by id. An item costs its summary plus its id plus "knowledge" (9).
  const padded = (id: string, cost: number, sourceRef?: string) =>
    item({
      id,
      summary: `alpha${"-".repeat(cost - 5 - id.length - 9 - (sourceRef?.length ?? 0))}`,
      provenance: { sourceType: "git", ...(sourceRef === undefined ? {} : { sourceRef }) },
    });
  const ids = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(3, "0")}`);

  test("walks only what can still fit, and defers the rest where a full walk would", () => {
    // Budget 4,400 characters: a000 (3,000) fits, a001 (2,000) does not, and from there the b items (2,000) never
    // can, while some of the c items (100) still do.
    const pool = [
      padded("a000", 3_000),
      padded("a001", 2_000),
      ...ids("b", 20).map((id) => padded(id, 2_000)),
      ...ids("c", 20).map((id) => padded(id, 100)),
    ];
    const packet = assemble(pool, { task: "alpha", budgetTokens: 1_100 });
    expect(packet.audit.selectedIds).toEqual(["a000", ...ids("c", 14)]);
    expect(packet.packet.unresolvedGaps).toEqual(["budget of 1100 tokens reached; 27 candidates deferred"]);
  });

  test("the item limit stops a walk that orders its items in chunks, and nothing after it is deferred", () => {
    // Budget 7,680 characters. The index orders a kind's matched items 64 at a time: the first chunk is a000 (two
    // "alpha"s like the next 63, so it ties with them and comes first by id; 7,684 characters, deferred) and s000 to
    // s062. The other 237 s items (one "alpha", 30 characters each) fit, so the item limit is reached at s255, and
    // the big z000 after it is not deferred.
    const alphas = (id: string, cost: number, count: number) => {
      const words = Array.from({ length: count }, () => "alpha").join(" ");
      return item({
        id,
        summary: `${words}${"-".repeat(cost - words.length - id.length - 9)}`,
        provenance: { sourceType: "git" },
      });
    };
    const small = ids("s", 300);
    const pool = [
      alphas("a000", 7_684, 2),
      ...small.slice(0, 63).map((id) => alphas(id, 30, 2)),
      ...small.slice(63).map((id) => alphas(id, 30, 1)),
      alphas("z000", 7_684, 1),
    ];
    const packet = assemble(pool, { task: "alpha", budgetTokens: 1_920 });
    expect(packet.audit.selectedIds).toEqual(small.slice(0, 256));
    expect(packet.packet.unresolvedGaps).toEqual([
      "budget of 1920 tokens reached; 1 candidates deferred",
      "context item limit reached; refine the task or kinds",
    ]);
  });

  test("the item limit still ends the walk without deferring what comes after it", () => {
    // Budget 4,608 characters. The first item costs 4,611 and is deferred; 256 items of 18 characters then fill the
    // budget and reach the item limit; the last item comes after the limit and is not deferred.
    const sourceRef = `r/${"x".repeat(498)}`;
    const pool = [
      padded(`a${"x".repeat(99)}`, 4_611, sourceRef),
      ...ids("s", 300).map((id) => padded(id, 18)),
      padded(`z${"x".repeat(99)}`, 4_611, sourceRef),
    ];
    const packet = assemble(pool, { task: "alpha", budgetTokens: 1_152 });
    expect(packet.audit.selectedIds).toEqual(ids("s", 256));
    expect(packet.packet.unresolvedGaps).toEqual([
      "budget of 1152 tokens reached; 1 candidates deferred",
      "context item limit reached; refine the task or kinds",
    ]);
  });
});
