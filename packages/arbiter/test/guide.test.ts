import { assemblePacket, PoolIndex, recall } from "@kxm/arbiter";
import { describe, expect, test } from "vitest";
import { currentState } from "./helpers.js";

// The guide's demo project after `release.branch` was proposed by an agent and promoted with review evidence.
const promoted = currentState(
  "state_release_branch_2",
  "release.branch",
  "Releases are cut from the main branch",
  {
    evidenceRefs: ["pr:12", "review:pr-12"],
    supersedes: ["state_release_branch_1"],
    validFrom: "2026-10-01T12:00:00Z",
  },
);
const consumedProposal = { ...promoted, id: "state_release_branch_1", status: "rejected" as const };
const pool = [consumedProposal, promoted];

describe("the guide's examples", () => {
  test("the planner packet prints exactly the guide's expected line", () => {
    const { packet, audit } = assemblePacket(pool, {
      project: "demo",
      role: "planner",
      task: "Which branch do we release from?",
    });
    const projection = {
      state: packet.currentState.map((item) => item.summary),
      gaps: packet.unresolvedGaps,
      relevance: audit.relevance,
    };
    expect(JSON.stringify(projection)).toBe(
      '{"state":["Releases are cut from the main branch"],"gaps":[],"relevance":{"taskTokens":2,"matchedCandidates":1,"selected":[0.791]}}',
    );
    expect(audit.excludedSuperseded).toBe(1);
    expect(audit.budgetTokens).toBe(16_000);
  });

  test("recall prints exactly the guide's expected line", () => {
    const result = recall(pool, { project: "demo", query: "release branch" });
    const lines = result.items.map(({ kind, status, sourceType, relevance }) =>
      JSON.stringify({ kind, status, origin: sourceType, relevance }),
    );
    expect(lines).toEqual(['{"kind":"state","status":"current","origin":"peer","relevance":0.791}']);
  });

  test("the index answers both examples with the same bytes", () => {
    const index = new PoolIndex(pool);
    const request = { project: "demo", role: "planner", task: "Which branch do we release from?" };
    expect(JSON.stringify(index.assemble(request))).toBe(JSON.stringify(assemblePacket(pool, request)));
    const recallRequest = { project: "demo", query: "release branch" };
    expect(JSON.stringify(index.recall(recallRequest))).toBe(JSON.stringify(recall(pool, recallRequest)));
  });
});
