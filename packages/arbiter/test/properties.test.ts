import {
  ANALYSES,
  assemblePacket,
  indexedText,
  isInert,
  isLive,
  PoolIndex,
  queryTerms,
  recall,
  tokenize,
} from "@kxm/arbiter";
import { type ContextItem, type ContextRequest, LIMITS, PACKET_SECTIONS, rolePolicy } from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { Postings } from "../src/postings.js";
import {
  contradictionsArb,
  itemArb,
  poolArb,
  recallRequestArb,
  requestArb,
  withheldArb,
} from "./arbitraries.js";
import { bytes, item } from "./helpers.js";

const RUNS = { numRuns: 300 };

const scenario = poolArb().chain((pool) =>
  fc.record({
    pool: fc.constant(pool),
    shuffled: fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }),
    request: requestArb,
    contradictionIds: contradictionsArb(pool),
    withheld: withheldArb(),
  }),
);

describe("packet assembly properties", () => {
  test.each(ANALYSES)("a shuffled pool gives a byte-identical packet, plain and indexed (%s)", (analysis) => {
    fc.assert(
      fc.property(scenario, ({ pool, shuffled, request, contradictionIds, withheld }) => {
        const options = { contradictionIds, withheld, analysis };
        const expected = bytes(assemblePacket(pool, request, options));
        expect(bytes(assemblePacket(shuffled, request, options))).toBe(expected);
        expect(
          bytes(new PoolIndex(shuffled, { analysis }).assemble(request, { contradictionIds, withheld })),
        ).toBe(expected);
      }),
      RUNS,
    );
  });

  test("near misses: at most the bound, in order, never selected, each sharing a task token", () => {
    fc.assert(
      fc.property(scenario, ({ pool, request, contradictionIds, withheld }) => {
        const { packet, audit } = assemblePacket(pool, request, { contradictionIds, withheld });
        const misses = audit.nearMisses;
        expect(misses.length).toBeLessThanOrEqual(LIMITS.maxNearMisses);
        const selected = new Set(audit.selectedIds);
        const known = new Map(
          [...pool, ...withheld.map(({ item }) => item)].map((entry) => [entry.id, entry]),
        );
        const terms = new Set(queryTerms(request.task));
        for (const miss of misses) {
          expect(selected.has(miss.id)).toBe(false);
          const entry = known.get(miss.id)!;
          expect(miss.kind).toBe(entry.kind);
          expect(tokenize(indexedText(entry)).some((token) => terms.has(token))).toBe(true);
        }
        for (let i = 1; i < misses.length; i += 1) {
          const [before, after] = [misses[i - 1]!, misses[i]!];
          // Ordered by the unrounded score then the id: rounded, a later score is never higher.
          expect(before.score).toBeGreaterThanOrEqual(after.score);
        }
        // Withheld items are only ever near misses: the packet and the rest of the audit do not change.
        const without = assemblePacket(pool, request, { contradictionIds });
        expect(bytes(packet)).toBe(bytes(without.packet));
        expect(bytes({ ...audit, nearMisses: [] })).toBe(bytes({ ...without.audit, nearMisses: [] }));
      }),
      RUNS,
    );
  });

  test("two calls give identical bytes", () => {
    fc.assert(
      fc.property(scenario, ({ pool, request, contradictionIds, withheld }) => {
        const index = new PoolIndex(pool);
        expect(bytes(assemblePacket(pool, request, { contradictionIds, withheld }))).toBe(
          bytes(assemblePacket(pool, request, { contradictionIds, withheld })),
        );
        expect(bytes(index.assemble(request, { contradictionIds, withheld }))).toBe(
          bytes(index.assemble(request, { contradictionIds, withheld })),
        );
      }),
      RUNS,
    );
  });

  test("the estimate never exceeds the budget; every selected item is eligible; sections partition it", () => {
    fc.assert(
      fc.property(scenario, ({ pool, request, contradictionIds }) => {
        const { packet, audit } = assemblePacket(pool, request, { contradictionIds });
        expect(packet.estimatedTokens).toBeLessThanOrEqual(packet.budgetTokens);
        const kinds = request.includeKinds ?? rolePolicy(request.role).kinds;
        const open = new Set(contradictionIds);
        const byId = new Map(pool.map((entry) => [entry.id, entry]));
        for (const id of audit.selectedIds) {
          const entry = byId.get(id)!;
          expect(isLive(entry)).toBe(true);
          expect(open.has(id) || (kinds.includes(entry.kind) && !isInert(entry))).toBe(true);
        }
        const sectioned = PACKET_SECTIONS.flatMap((section) =>
          packet[section].map((entry: ContextItem) => entry.id),
        );
        expect([...sectioned].sort()).toEqual([...audit.selectedIds].sort());
        expect(new Set(sectioned).size).toBe(sectioned.length);
        expect(packet.contradictions.every((entry) => open.has(entry.id))).toBe(true);
      }),
      RUNS,
    );
  });

  test("the deferred count equals the eligible items not selected (below the item limit)", () => {
    fc.assert(
      fc.property(scenario, ({ pool, request, contradictionIds }) => {
        const { audit } = assemblePacket(pool, request, { contradictionIds });
        const deferred = audit.candidateCount - audit.selectedIds.length;
        const gap = audit.unresolvedGaps.find((g) => g.includes("candidates deferred"));
        if (deferred > 0 && audit.selectedIds.length > 0) {
          expect(gap).toBe(`budget of ${audit.budgetTokens} tokens reached; ${deferred} candidates deferred`);
        } else {
          expect(gap).toBeUndefined();
        }
      }),
      RUNS,
    );
  });
});

describe("large pools", () => {
  // Hundreds of matched items of one kind, a vocabulary of 19 words (so many scores tie) and budgets from a few
  // items to past the 256-item limit: the index orders a kind's matched items in chunks (the best 64, then the
  // next 256, ...) and drops what can no longer fit between chunks, and must still give the plain function's bytes.
  const kinds = ["knowledge", "knowledge", "knowledge", "knowledge", "evidence", "state"] as const;
  const largePool = fc
    .integer({ min: 100, max: 700 })
    .chain((size) => fc.tuple(...Array.from({ length: size }, (_, n) => itemArb(`i${n}`, false, kinds))));
  const largeScenario = largePool.chain((pool) =>
    fc.record({
      pool: fc.constant(pool),
      shuffled: fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }),
      request: requestArb.map(
        (request): ContextRequest => ({ ...request, includeKinds: ["knowledge", "evidence"] }),
      ),
      budgetTokens: fc.option(fc.integer({ min: 512, max: 60_000 }), { nil: undefined }),
      contradictionIds: contradictionsArb(pool),
      withheld: withheldArb(12),
    }),
  );

  test.each(ANALYSES)(
    "a shuffled large pool gives the plain function's bytes, whatever the budget (%s)",
    (analysis) => {
      fc.assert(
        fc.property(
          largeScenario,
          ({ pool, shuffled, request, budgetTokens, contradictionIds, withheld }) => {
            const full = budgetTokens === undefined ? request : { ...request, budgetTokens };
            const expected = bytes(assemblePacket(pool, full, { contradictionIds, withheld, analysis }));
            const index = new PoolIndex(shuffled, { analysis });
            expect(bytes(index.assemble(full, { contradictionIds, withheld }))).toBe(expected);
          },
        ),
        // Shrinking a pool of hundreds of items takes minutes: report the first counterexample as it is.
        { numRuns: 60, endOnFailure: true },
      );
    },
  );
});

describe("recall over a large pool", () => {
  // Thousands of items, so that recall's shortcuts are taken: a common word's scored phrase hits found among the
  // best scored slots, a substring found in the first slots by id, and the searches that fall back to every slot
  // (a rare phrase, a substring whose first hits by id lie past the first 2,048 ids). Ids run in another order
  // than slots, and state keys and non-ASCII text hold phrases too.
  const words = ["gate", "deploy", "canary", "rollback", "flaky", "cache", "café", "naïve", "retry", "queue"];
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed >>> 8;
  };
  const pool = Array.from({ length: 3_000 }, (_, i) => {
    const count = 3 + (next() % 12);
    const text = Array.from({ length: count }, () => words[next() % words.length]).join(
      next() % 5 ? " " : "—",
    );
    const kind = (["knowledge", "evidence", "episode", "state", "skill"] as const)[i % 5]!;
    // "zebra" only in items whose ids sort late, so its first hits by id lie past the first 2,048.
    const late = i % 3 === 0 ? " zebra" : "";
    const id = `${i % 3 === 0 ? "z" : "a"}${String((i * 7_919) % 3_000).padStart(4, "0")}`;
    return item({
      id,
      kind,
      // "gat" is a word of a few items and a substring of every "gate": its phrase hits are mostly unscored.
      summary: `${text}${late}${i === 2_999 ? " rare phrase here" : ""}${i % 500 === 1 ? " gat" : ""}`,
      ...(kind === "state"
        ? { stateKey: `svc.${words[i % words.length]}.flag`, status: "current" as const }
        : kind === "skill"
          ? { status: "proposed" as const }
          : {}),
    });
  });
  const index = new PoolIndex(pool);
  const queries = [
    "gate",
    "gat",
    "cache retry",
    "canary rollback deploy",
    "rare phrase",
    "ebr",
    "zebra",
    "ach",
    "café",
    "ïve—ret",
    "svc.gate",
    "y",
    "nothing-like-this",
  ];

  test("gives the plain function's bytes for every shortcut and fallback", () => {
    for (const query of queries) {
      for (const limit of [1, 25, 100]) {
        for (const kinds of [undefined, ["state", "episode"] as const]) {
          const request = { project: "demo", query, limit, ...(kinds ? { kinds: [...kinds] } : {}) };
          expect(bytes(index.recall(request)), `${query} ${limit} ${kinds}`).toBe(
            bytes(recall(pool, request)),
          );
        }
      }
    }
  });
});

describe("recall properties", () => {
  test.each(ANALYSES)("a shuffled pool gives byte-identical results, plain and indexed (%s)", (analysis) => {
    const recallScenario = poolArb().chain((pool) =>
      fc.record({
        pool: fc.constant(pool),
        shuffled: fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }),
        request: recallRequestArb,
      }),
    );
    fc.assert(
      fc.property(recallScenario, ({ pool, shuffled, request }) => {
        const expected = bytes(recall(pool, request, { analysis }));
        expect(bytes(recall(shuffled, request, { analysis }))).toBe(expected);
        expect(bytes(new PoolIndex(shuffled, { analysis }).recall(request))).toBe(expected);
      }),
      RUNS,
    );
  });
});

type Edit = { op: "add" | "replace" | "remove"; pick: number; replacement: ContextItem };

describe("the index under edits", () => {
  test.each(ANALYSES)(
    "after any sequence of adds, replaces and removes, it answers exactly as the plain functions (%s)",
    (analysis) => {
      const editArb: fc.Arbitrary<Edit> = fc.record({
        op: fc.constantFrom("add", "replace", "remove"),
        pick: fc.nat(),
        replacement: fc.nat(9999).chain((n) => itemArb(`n${n}`)),
      });
      const editScenario = fc.record({
        pool: poolArb(40),
        edits: fc.array(editArb, { maxLength: 25 }),
        requests: fc.array(requestArb, { minLength: 1, maxLength: 3 }),
        recalls: fc.array(recallRequestArb, { minLength: 1, maxLength: 2 }),
        withheld: withheldArb(),
      });
      fc.assert(
        fc.property(editScenario, ({ pool, edits, requests, recalls, withheld }) => {
          const index = new PoolIndex(pool, { analysis });
          const current = new Map(pool.map((entry) => [entry.id, entry]));
          for (const edit of edits) {
            const ids = [...current.keys()];
            const target = ids.length === 0 ? undefined : ids[edit.pick % ids.length]!;
            if (edit.op === "add" && !current.has(edit.replacement.id)) {
              index.add(edit.replacement);
              current.set(edit.replacement.id, edit.replacement);
            } else if (edit.op === "replace" && target !== undefined) {
              const replacement = { ...edit.replacement, id: target };
              index.replace(replacement);
              current.set(target, replacement);
            } else if (edit.op === "remove" && target !== undefined) {
              expect(index.remove(target)).toBe(true);
              current.delete(target);
            }
          }
          const items = [...current.values()];
          expect(index.size).toBe(items.length);
          const contradictionIds = items.filter((_, i) => i % 5 === 0).map((entry) => entry.id);
          for (const request of requests) {
            expect(bytes(index.assemble(request, { contradictionIds, withheld }))).toBe(
              bytes(assemblePacket(items, request, { contradictionIds, withheld, analysis })),
            );
          }
          for (const request of recalls)
            expect(bytes(index.recall(request))).toBe(bytes(recall(items, request, { analysis })));
        }),
        { numRuns: 200 },
      );
    },
  );

  test("a pool loaded in bulk answers as one added item by item, with lists long enough for bitsets", () => {
    // 300 items, half knowledge and half evidence, that all hold "shared" and "term": lists past 64 entries, which
    // the bulk load gives bitsets (the random pools above stay too small for any).
    const words = ["gate", "deploy", "canary", "rollback", "flaky", "cache"];
    const pool = Array.from({ length: 300 }, (_, i) =>
      item({
        id: `k${String(i).padStart(3, "0")}`,
        summary: `${words[i % 6]} ${words[(i * 7) % 5]} shared term ${i}${i % 10 === 0 ? " rare" : ""}`,
        kind: i % 2 === 0 ? "knowledge" : "evidence",
        confidence: i % 3 === 0 ? "verified" : "probable",
        observedAt: `2026-0${1 + (i % 9)}-01T00:00:00.000Z`,
      }),
    );
    const requests: ContextRequest[] = [
      { project: "demo", role: "implementer", task: "shared gate canary rare" },
      // A budget that fills on knowledge: the evidence the walk never reaches is counted from the lists' bitsets.
      { project: "demo", role: "implementer", task: "shared term flaky", budgetTokens: 512 },
      { project: "demo", role: "planner", task: "term rollback", budgetTokens: 512 },
    ];
    const bulk = new PoolIndex(pool);
    const oneByOne = new PoolIndex();
    for (const entry of pool) oneByOne.add(entry);
    const check = (items: readonly ContextItem[]) => {
      for (const request of requests) {
        const expected = bytes(assemblePacket(items, request));
        expect(bytes(bulk.assemble(request))).toBe(expected);
        expect(bytes(oneByOne.assemble(request))).toBe(expected);
      }
      const expected = bytes(recall(items, { project: "demo", query: "shared term" }));
      expect(bytes(bulk.recall({ project: "demo", query: "shared term" }))).toBe(expected);
      expect(bytes(oneByOne.recall({ project: "demo", query: "shared term" }))).toBe(expected);
    };
    check(pool);
    // Removals move pairs within lists and drop bitsets; adding back puts new pairs at the ends.
    const third = (entry: ContextItem) => Number(entry.id.slice(1)) % 3 === 0;
    for (const index of [bulk, oneByOne]) for (const entry of pool.filter(third)) index.remove(entry.id);
    check(pool.filter((entry) => !third(entry)));
    const back = pool.slice(0, 30).filter(third);
    for (const index of [bulk, oneByOne]) for (const entry of back) index.add(entry);
    check(pool.filter((entry, i) => i < 30 || !third(entry)));
  });

  test("lists that move, empty and are compacted keep their pairs, and the arena gives the waste back", () => {
    // Each slot holds 40 terms of its own and two everyone holds: removing most slots empties thousands of lists,
    // and adding slots back makes the shared lists outgrow their places and move.
    const tokensOf = (slot: number) => [
      "shared",
      "term",
      "shared",
      ...Array.from({ length: 40 }, (_, j) => `own${slot}x${j}`),
    ];
    const postings = new Postings();
    postings.reserve(1024);
    for (let slot = 0; slot < 600; slot += 1) postings.add(slot, tokensOf(slot), slot % 3);
    const grown = postings.arena.length;
    for (let slot = 0; slot < 600; slot += 1) if (slot % 10 !== 0) postings.remove(slot, slot % 3);
    // Compacted: the arena now holds the 60 slots left, at their own capacities, not the 600 it held.
    expect(postings.arena.length).toBeLessThan(grown / 4);
    for (let slot = 600; slot < 900; slot += 1) postings.add(slot, tokensOf(slot), slot % 3);
    const live = [
      ...Array.from({ length: 60 }, (_, i) => i * 10),
      ...Array.from({ length: 300 }, (_, i) => 600 + i),
    ];
    const shared = postings.idOf("shared")!;
    for (let group = 0; group < 3; group += 1) {
      const members = live.filter((slot) => slot % 3 === group);
      expect(postings.frequency(shared, group)).toBe(members.length);
      const at = postings.listAt(shared, group);
      const arena = postings.arena;
      const held = Array.from({ length: arena[at]! }, (_, i) => arena[at + 1 + 2 * i]!);
      expect(held.sort((a, b) => a - b)).toEqual(members);
    }
    for (const slot of live) {
      expect(postings.tfOf(slot, shared, slot % 3)).toBe(2);
      expect(postings.tfOf(slot, postings.idOf(`own${slot}x39`)!, slot % 3)).toBe(1);
    }
    expect(postings.idOf("own1x0")).toBeUndefined();

    // The same churn through PoolIndex answers as the plain functions do.
    const pool = Array.from({ length: 600 }, (_, i) =>
      item({
        id: `k${String(i).padStart(3, "0")}`,
        summary: `${tokensOf(i).join(" ")}${i % 7 === 0 ? " rare" : ""}`,
        kind: i % 2 === 0 ? "knowledge" : "evidence",
      }),
    );
    const index = new PoolIndex(pool);
    for (const entry of pool) if (Number(entry.id.slice(1)) % 10 !== 0) index.remove(entry.id);
    const back = pool.filter((entry) => Number(entry.id.slice(1)) % 10 === 3);
    for (const entry of back) index.add(entry);
    const items = pool.filter((entry) => Number(entry.id.slice(1)) % 10 === 0 || back.includes(entry));
    for (const task of ["shared rare", "term own3x5 own30x1", "rare"]) {
      const request: ContextRequest = { project: "demo", role: "implementer", task, budgetTokens: 2048 };
      expect(bytes(index.assemble(request))).toBe(bytes(assemblePacket(items, request)));
    }
    expect(bytes(index.recall({ project: "demo", query: "shared rare" }))).toBe(
      bytes(recall(items, { project: "demo", query: "shared rare" })),
    );
  });

  test("staging is for an empty index: a flush into a list that already exists is refused", () => {
    const postings = new Postings();
    postings.reserve(64);
    postings.add(0, ["gate"], 0);
    postings.stage(1, ["gate", "deploy"], 0);
    expect(() => postings.flush()).toThrow("staged into a list that already exists");
  });

  test("add refuses a present id; replace refuses an unknown one; remove reports absence", () => {
    const [first] = fc.sample(itemArb("a"), 1);
    const index = new PoolIndex([first!]);
    expect(() => index.add(first!)).toThrow(expect.objectContaining({ code: "invalid_request" }));
    expect(() => index.replace({ ...first!, id: "b" })).toThrow(
      expect.objectContaining({ code: "not_found" }),
    );
    expect(index.remove("b")).toBe(false);
    index.upsert({ ...first!, summary: "changed" });
    expect(index.get("a")?.summary).toBe("changed");
    expect(index.items().map((entry) => entry.id)).toEqual(["a"]);
  });
});
