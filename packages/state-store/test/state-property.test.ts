import type { ContextItem } from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { KxmStore } from "../src/index.js";
import { guideProposal } from "./support/state-fixtures.js";
import { T0, tempStore } from "./support/temp-store.js";

const KEYS = ["release.branch", "ci.runner", "deploy.window"] as const;

type Step =
  | { op: "propose"; key: number; by: number; advance: number }
  | { op: "promote"; pick: number; by: number; advance: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("propose" as const),
    key: fc.nat({ max: KEYS.length - 1 }),
    by: fc.nat({ max: 2 }),
    advance: fc.integer({ min: -2, max: 3 }),
  }),
  fc.record({
    op: fc.constant("promote" as const),
    pick: fc.nat({ max: 40 }),
    by: fc.nat({ max: 2 }),
    advance: fc.integer({ min: -2, max: 3 }),
  }),
);

/** Every invariant of the key's history: at most one current item, windows adjacent and never overlapping. */
function checkHistory(history: readonly ContextItem[]): void {
  const values = history.filter((item) => item.status === "current" || item.status === "superseded");
  expect(values.filter((item) => item.status === "current").length).toBeLessThanOrEqual(1);
  const byId = new Map(values.map((item) => [item.id, item]));
  for (const successor of values) {
    for (const id of successor.supersedes ?? []) {
      const old = byId.get(id);
      if (old === undefined) continue;
      expect(old.status).toBe("superseded");
      expect(old.validUntil! <= successor.validFrom!).toBe(true);
    }
  }
  for (const item of history) {
    if (item.validUntil !== undefined) expect(item.validFrom! < item.validUntil).toBe(true);
  }
  // No two values are active at any instant: sorted by start, each ends no later than the next starts.
  const sorted = [...values].sort((a, b) => (a.validFrom! < b.validFrom! ? -1 : 1));
  for (let i = 1; i < sorted.length; i++) {
    expect(
      sorted[i - 1]!.validUntil !== undefined && sorted[i - 1]!.validUntil! <= sorted[i]!.validFrom!,
    ).toBe(true);
  }
}

async function play(store: KxmStore, project: string, steps: readonly Step[]): Promise<void> {
  await store.createProject({ id: project }, new Date(T0));
  let clock = Date.parse(T0);
  const proposals: string[] = [];
  for (const s of steps) {
    clock += s.advance; // may step back: the store must keep windows ordered anyway
    const now = new Date(clock);
    if (s.op === "propose") {
      const item = await store.proposeState(
        guideProposal({
          project,
          key: KEYS[s.key]!,
          summary: `value ${proposals.length}`,
          proposedBy: `agent-${s.by}`,
        }),
        now,
      );
      proposals.push(item.id);
    } else if (proposals.length > 0) {
      const proposalId = proposals[s.pick % proposals.length]!;
      await store
        .promoteState({ project, proposalId, promotedBy: `agent-${s.by}`, evidenceRefs: ["review:1"] }, now)
        .catch((error: { code?: string }) => {
          // Promoting a consumed proposal, or one's own, is refused and changes nothing.
          expect(["state_proposal_not_promotable", "state_promotion_invalid"]).toContain(error.code);
        });
    }
    for (const key of KEYS) {
      const current = await store.currentState(project, key, new Date(clock + 10_000));
      expect(current.filter((item) => item.status === "current").length).toBeLessThanOrEqual(1);
    }
  }
  for (const key of KEYS) checkHistory(await store.stateHistory(project, key));
  for (const contradiction of await store.openContradictions(project)) {
    // Only competing proposals can be open: promotion never leaves two current items.
    const items = await Promise.all(contradiction.itemIds.map((id) => store.getItem(project, id)));
    expect(items.every((item) => item?.status === "proposed")).toBe(true);
  }
}

describe("temporal state properties", () => {
  test("random propose/promote sequences never leave two current items, and windows chain", async () => {
    const { store } = await tempStore();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        await play(store, `p${run++}`, steps);
      }),
      { numRuns: 60 },
    );
  });
});
