import type { WithheldReason } from "@kxm/arbiter";
import {
  AUTHORITIES,
  CONFIDENCES,
  type ContextItem,
  type ContextRequest,
  ITEM_KINDS,
  type ItemKind,
  ORIGIN_CEILINGS,
  ORIGINS,
  type RecallRequest,
} from "@kxm/contract";
import fc from "fast-check";

// A small vocabulary, so tasks and summaries share words often; plural and case variants exercise the tokenizer.
const WORDS = [
  "release",
  "Releases",
  "branch",
  "main",
  "deploy",
  "deploys",
  "deploying",
  "deployed",
  "canary",
  "retries",
  "flaky",
  "playwright",
  "ci",
  "the",
  "of",
  "gate",
  "timeout",
  "Ünïcode",
  "東京",
  "42",
  "x",
];
const TIMES = [
  "2026-01-01T00:00:00Z",
  "2026-01-01T00:00:00.000Z",
  "2026-03-01T02:00:00+03:00",
  "2026-06-01T00:00:00Z",
];

const text = (min: number, max: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max }).map((words) => words.join(" "));

const statusFor = (kind: ItemKind) =>
  kind === "state"
    ? fc.constantFrom("current", "current", "proposed", "superseded", "rejected")
    : kind === "skill"
      ? fc.constantFrom(undefined, undefined, "proposed", "rejected")
      : fc.constantFrom(undefined, undefined, undefined, "superseded", "rejected");

const AUTHORITY_ORDER = [...AUTHORITIES];

/** Items of one project and `_shared`, valid by the contract, with every ranking key varied. */
export const itemArb = (
  id: string,
  long = false,
  kinds: readonly ItemKind[] = ITEM_KINDS,
): fc.Arbitrary<ContextItem> =>
  fc.constantFrom(...kinds).chain((kind) =>
    fc
      .record({
        kind: fc.constant(kind),
        project: fc.constantFrom("demo", "demo", "demo", "_shared"),
        summary: long ? text(60, 120) : fc.oneof(text(1, 12), text(40, 120)),
        sourceType: fc.constantFrom(...ORIGINS),
        sourceRef: fc.option(fc.constantFrom("docs/a.md", "journal:1", "skill:x.0123@abc"), {
          nil: undefined,
        }),
        confidence: fc.constantFrom(...CONFIDENCES),
        authorityPick: fc.nat(3),
        status: statusFor(kind),
        stateKey:
          kind === "state" ? fc.constantFrom("release.branch", "deploy.window") : fc.constant(undefined),
        observedAt: fc.option(fc.constantFrom(...TIMES), { nil: undefined }),
        validFrom: fc.option(fc.constantFrom(...TIMES), { nil: undefined }),
      })
      .map((r) => {
        const ceiling = AUTHORITY_ORDER.indexOf(ORIGIN_CEILINGS[r.sourceType]);
        const authority = AUTHORITY_ORDER[Math.max(ceiling, r.authorityPick)]!;
        const result: ContextItem = {
          id,
          kind: r.kind,
          project: r.project,
          summary: r.summary,
          provenance: {
            sourceType: r.sourceType,
            ...(r.sourceRef === undefined ? {} : { sourceRef: r.sourceRef }),
            ...(r.sourceType === "derived" ? { derivedFrom: ["root"] } : {}),
          },
          authority,
          confidence: r.confidence,
        };
        if (r.status !== undefined) result.status = r.status as ContextItem["status"];
        if (r.stateKey !== undefined) result.stateKey = r.stateKey;
        if (r.observedAt !== undefined) result.observedAt = r.observedAt;
        if (r.validFrom !== undefined) result.validFrom = r.validFrom;
        return result;
      }),
  );

const idArb = fc.stringMatching(/^[A-Za-z0-9_é]{1,4}$/);

/**
 * A pool with unique ids. One pool in four has only long summaries, so that the budget runs out with less room
 * than the cheapest item needs (the case where the index stops its walk early).
 */
export const poolArb = (maxLength = 60): fc.Arbitrary<ContextItem[]> =>
  fc
    .tuple(fc.uniqueArray(idArb, { maxLength }), fc.nat(3))
    .chain(([ids, mode]) =>
      ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map((id) => itemArb(id, mode === 0))),
    );

export const requestArb: fc.Arbitrary<ContextRequest> = fc
  .record({
    role: fc.constantFrom("planner", "implementer", "critic", "repro", "verifier", "release-manager"),
    task: text(0, 10),
    budgetTokens: fc.option(fc.integer({ min: 512, max: 4000 }), { nil: undefined }),
    includeKinds: fc.option(fc.shuffledSubarray([...ITEM_KINDS], { minLength: 1, maxLength: 5 }), {
      nil: undefined,
    }),
  })
  .map((r) => {
    const request: ContextRequest = { project: "demo", role: r.role, task: r.task };
    if (r.budgetTokens !== undefined) request.budgetTokens = r.budgetTokens;
    if (r.includeKinds !== undefined) request.includeKinds = r.includeKinds;
    return request;
  });

export const recallRequestArb: fc.Arbitrary<RecallRequest> = fc
  .record({
    query: fc.oneof(text(0, 4), fc.constantFrom("release branch", "PLAY", "s.b", "")),
    kinds: fc.option(fc.shuffledSubarray([...ITEM_KINDS], { minLength: 1, maxLength: 5 }), {
      nil: undefined,
    }),
    limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  })
  .map((r) => {
    const request: RecallRequest = { project: "demo", query: r.query };
    if (r.kinds !== undefined) request.kinds = r.kinds;
    if (r.limit !== undefined) request.limit = r.limit;
    return request;
  });

/** A subset of the pool's ids (plus one unknown id) to mark as open contradictions. */
export const contradictionsArb = (pool: ContextItem[]) => {
  const ids = [...pool.map((entry) => entry.id), "unknown"];
  return fc.subarray(ids, { maxLength: Math.min(6, ids.length) });
};

const WITHHELD_REASONS = ["revoked", "forgotten", "expired", "check_failed"] as const;

/**
 * Items a rule below the arbiter keeps out of the pool, each with a reason: ids with a dash, which no pool id
 * (`idArb`) has, so that they never collide with the pool.
 */
export const withheldArb = (maxLength = 6): fc.Arbitrary<{ item: ContextItem; reason: WithheldReason }[]> =>
  fc
    .uniqueArray(fc.nat(99), { maxLength })
    .chain((ns) =>
      ns.length === 0
        ? fc.constant([])
        : fc.tuple(
            ...ns.map((n) =>
              fc.record({ item: itemArb(`w-${n}`), reason: fc.constantFrom(...WITHHELD_REASONS) }),
            ),
          ),
    );
