import {
  type ContextItem,
  JOURNAL_CATEGORIES,
  type JournalEntry,
  NAMED_ROLES,
  type ProjectRecord,
  type Revocation,
  type Tombstone,
  type WithheldReason,
} from "@kxm/contract";
import { contentSha256, type WithholdRules } from "@kxm/state-store";
import fc from "fast-check";
import { pino } from "pino";
import { describe, expect, test } from "vitest";
import type { Authored } from "../src/authored.js";
import { type JournalRecord, toJournalRecord } from "../src/journal-records.js";
import { ProjectPool } from "../src/project-pool.js";
import { WithholdMatcher } from "../src/withheld.js";

// The pool keeps its withheld set up to date by recomputing only what a change can reach (decision 0017). Whatever
// the rules and whatever the writes, a pool kept that way must equal one built from scratch from the same records.

const log = pino({ level: "silent" });
const PROJECT: ProjectRecord = { id: "alpha", checkoutRoot: null, createdAt: "2026-11-01T00:00:00.000Z" };
const START = Date.parse("2026-11-10T00:00:00.000Z");
const STORE_IDS = ["itm_0", "itm_1", "itm_2", "itm_3", "itm_4", "itm_5", "itm_6", "itm_7", "itm_8", "itm_9"];
const AUTHORED_IDS = ["mem_a", "mem_b", "skill_c"];
/** Every id an item may name in `derivedFrom`: stored, journal and authored items, and one no record ever has. */
const ANY_ID = [
  ...STORE_IDS,
  "journal_ent_0",
  "journal_ent_1",
  "journal_ent_2",
  "journal_ent_3",
  ...AUTHORED_IDS,
  "itm_gone",
];
const SUMMARIES = ["Deploys wait for the release suite", "The gate runs on main", "Tags follow the suite"];
const SOURCES = ["tool:ci", "tool:lint", "journal:ent_1", "proposed-by:agent-b"];
const EVIDENCE = ["ev:1", "ev:2"];
/** Expiry times around the clock's range, so writes land both before and after them. */
const EXPIRIES = [START - 1, START + 1_000, START + 5_000, START + 20_000].map((ms) =>
  new Date(ms).toISOString(),
);

const subset = <T>(values: readonly T[], maxLength = 3) =>
  fc.uniqueArray(fc.constantFrom(...values), { maxLength });

const storeItemArb: fc.Arbitrary<ContextItem> = fc
  .record({
    id: fc.constantFrom(...STORE_IDS),
    state: fc.boolean(),
    status: fc.constantFrom("current", "proposed", "superseded"),
    summary: fc.constantFrom(...SUMMARIES),
    sourceRef: fc.option(fc.constantFrom(...SOURCES), { nil: undefined }),
    evidenceRefs: subset(EVIDENCE, 2),
    derivedFrom: subset(ANY_ID),
    expiresAt: fc.option(fc.constantFrom(...EXPIRIES), { nil: undefined }),
  })
  .map(({ id, state, status, summary, sourceRef, evidenceRefs, derivedFrom, expiresAt }) => ({
    id,
    kind: state ? "state" : "evidence",
    project: PROJECT.id,
    summary,
    provenance: {
      sourceType: "tool",
      ...(sourceRef === undefined ? {} : { sourceRef }),
      ...(derivedFrom.length === 0 ? {} : { derivedFrom }),
    },
    authority: "evidence",
    confidence: "probable",
    ...(state ? { stateKey: "release.branch", status } : {}),
    ...(evidenceRefs.length === 0 ? {} : { evidenceRefs }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  }));

/** Journal entries as the store keeps them: never edited, so each id always comes back the same. */
const ENTRIES: readonly JournalEntry[] = (
  [
    ["ent_0", "plan", ["ev:3"]],
    ["ent_1", "contradiction", ["ev:1"]],
    ["ent_2", "observation", ["ev:2", "ev:3"]],
    ["ent_3", "decision", ["ev:1"]],
  ] as const
).map(([id, category, evidenceRefs], index) => ({
  id,
  project: PROJECT.id,
  runId: "run_1",
  category,
  summary: SUMMARIES[index % SUMMARIES.length]!,
  evidenceRefs: [...evidenceRefs],
  createdAt: "2026-11-02T00:00:00.000Z",
}));

const revocationArb: fc.Arbitrary<Revocation> = fc
  .record({
    target: fc.constantFrom("item", "evidence", "source", "source_prefix", "agent"),
    item: fc.constantFrom(...ANY_ID),
    source: fc.constantFrom(...SOURCES),
    evidence: fc.constantFrom(...EVIDENCE),
    lifted: fc.boolean(),
  })
  .map(({ target, item, source, evidence, lifted }) => ({
    id: "rev",
    project: PROJECT.id,
    target,
    value: {
      item,
      evidence,
      source,
      source_prefix: source.slice(0, source.indexOf(":") + 1),
      agent: "agent-b",
    }[target],
    reason: "the source is wrong",
    revokedBy: "operator",
    revokedAt: "2026-11-03T00:00:00.000Z",
    ...(lifted ? { liftedBy: "operator", liftedAt: "2026-11-04T00:00:00.000Z" } : {}),
  }));

const tombstoneArb: fc.Arbitrary<Tombstone> = fc
  .record({
    itemId: fc.constantFrom(...ANY_ID),
    summary: fc.constantFrom(...SUMMARIES),
    lifted: fc.boolean(),
  })
  .map(({ itemId, summary, lifted }) => ({
    id: `tomb_${itemId}`,
    project: PROJECT.id,
    itemId,
    kind: "item",
    contentSha256: contentSha256(summary),
    reason: "asked to forget",
    forgottenBy: "operator",
    forgottenAt: "2026-11-03T00:00:00.000Z",
    ...(lifted ? { liftedBy: "operator", liftedAt: "2026-11-04T00:00:00.000Z" } : {}),
  }));

const rulesArb: fc.Arbitrary<WithholdRules> = fc
  .record({
    revocations: fc.array(revocationArb, { maxLength: 3 }),
    tombstones: fc.uniqueArray(tombstoneArb, { maxLength: 2, selector: (tombstone) => tombstone.itemId }),
    agentItems: subset(STORE_IDS, 2),
  })
  .map(({ revocations, tombstones, agentItems }) => ({
    revocations: revocations.map((revocation, index) => ({ ...revocation, id: `rev_${index}` })),
    tombstones,
    agentItems: new Map(agentItems.map((id) => [id, "agent-b"])),
  }));

/** Authored facts and a skill, one of them failing its committed check; one derives from a stored item. */
const authoredArb: fc.Arbitrary<Authored> = fc
  .record({ derivedFrom: subset(STORE_IDS, 2), checkFailed: subset(AUTHORED_IDS, 1) })
  .map(({ derivedFrom, checkFailed }) => ({
    key: "commit-1",
    items: AUTHORED_IDS.map((id, index) => ({
      id,
      kind: id.startsWith("skill_") ? "skill" : "knowledge",
      project: PROJECT.id,
      summary: SUMMARIES[index]!,
      provenance: {
        sourceType: "git",
        sourceRef: `memory:${id}`,
        ...(index === 0 && derivedFrom.length > 0 ? { derivedFrom } : {}),
      },
      authority: "evidence",
      confidence: "verified",
    })),
    checkFailed,
    gaps: [],
    memory: { commit: "commit-1", revision: "rev-1", withheld: [] },
  }));

type Step =
  | { readonly kind: "items"; readonly items: readonly ContextItem[] }
  | { readonly kind: "delete"; readonly ids: readonly string[] }
  | { readonly kind: "entry"; readonly entry: JournalEntry }
  | { readonly kind: "drop-entry"; readonly id: string }
  | { readonly kind: "tick"; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .array(storeItemArb, { minLength: 1, maxLength: 3 })
      .map((items) => ({ kind: "items" as const, items })),
  },
  { weight: 2, arbitrary: subset(STORE_IDS, 2).map((ids) => ({ kind: "delete" as const, ids })) },
  { weight: 2, arbitrary: fc.constantFrom(...ENTRIES).map((entry) => ({ kind: "entry" as const, entry })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...ENTRIES).map(({ id }) => ({ kind: "drop-entry" as const, id })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 8_000 }).map((ms) => ({ kind: "tick" as const, ms })) },
);

/**
 * The withheld ids and reasons of these records by the matcher over all of them at once (decisions 0017, 0018): a
 * committed check that failed, an expiry at or before the clock on an item that is served otherwise.
 */
function recomputed(items: readonly ContextItem[], rules: WithholdRules, authored: Authored, nowMs: number) {
  const timed = new Map<string, WithheldReason>(authored.checkFailed.map((id) => [id, "check_failed"]));
  for (const item of items) {
    if (item.expiresAt === undefined || item.status === "superseded") continue;
    if (Date.parse(item.expiresAt) <= nowMs) timed.set(item.id, "expired");
  }
  const held = new Set(items.map((item) => item.id));
  return [...new WithholdMatcher(rules).withhold(items, timed)]
    .filter(([id]) => held.has(id))
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

/** What a pool serves and withholds, as every reader sees it after the request's expiry check. */
function view(pool: ProjectPool, nowMs: number) {
  pool.withholdExpired(nowMs);
  const ids = (items: Iterable<ContextItem>) => [...items].map((item) => item.id).sort();
  return {
    withheld: pool.withheldItems().map(({ item, reason }) => ({ item, reason })),
    base: ids(pool.baseItems()),
    journal: ids(pool.journalItems(JOURNAL_CATEGORIES)),
    whole: ids(pool.wholeIndex().items()),
    digests: [...NAMED_ROLES, "someone-else"].map((role) => pool.digestForRole(role)),
    contradictions: pool.servedContradictions(),
    open: pool.openContradictionIds(),
  };
}

describe("ProjectPool's withheld set", () => {
  test("kept up to date write by write, equals the set of a pool built from the same records", () => {
    fc.assert(
      fc.property(
        rulesArb,
        authoredArb,
        fc.array(storeItemArb, { maxLength: 6 }),
        fc.array(stepArb, { minLength: 1, maxLength: 25 }),
        (rules, authored, initial, steps) => {
          const store = new Map(initial.map((item) => [item.id, item]));
          const journal = new Map<string, JournalRecord>();
          let now = START;
          const pool = new ProjectPool(PROJECT, [...store.values()], [], authored, log, rules);
          for (const step of steps) {
            if (step.kind === "items") {
              for (const item of step.items) store.set(item.id, item);
              pool.applyStored(
                step.items.map((item) => item.id),
                [...new Map(step.items.map((item) => [item.id, item])).values()],
                [],
                [],
              );
            } else if (step.kind === "delete") {
              for (const id of step.ids) store.delete(id);
              pool.applyStored(step.ids, [], [], []);
            } else if (step.kind === "entry") {
              journal.set(step.entry.id, toJournalRecord(step.entry, log)!);
              pool.applyStored([], [], [step.entry.id], [step.entry]);
            } else if (step.kind === "drop-entry") {
              journal.delete(step.id);
              pool.applyStored([], [], [step.id], []);
            } else {
              now += step.ms;
            }
            const fresh = new ProjectPool(
              PROJECT,
              [...store.values()],
              [...journal.values()],
              authored,
              log,
              rules,
            );
            const seen = view(pool, now);
            expect(seen).toEqual(view(fresh, now));
            const records = [
              ...authored.items,
              ...store.values(),
              ...[...journal.values()].map(({ item }) => item),
            ];
            expect(seen.withheld.map(({ item, reason }) => [item.id, reason])).toEqual(
              recomputed(records, rules, authored, now),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
