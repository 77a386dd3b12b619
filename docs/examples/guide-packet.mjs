// Assembles the guide's planner packet with @kxm/arbiter and prints it.
// The pool is the guide's demo project after an agent proposed `release.branch` and an operator promoted it.
import { assemblePacket } from "@kxm/arbiter";
import { parseContextItem } from "@kxm/provenance";

const pool = [
  // The agent's proposal, consumed by the promotion: kept as history, never selected.
  parseContextItem({
    id: "state_release_branch_p1",
    kind: "state",
    project: "demo",
    summary: "Releases are cut from the main branch",
    stateKey: "release.branch",
    status: "rejected",
    provenance: { sourceType: "peer", sourceRef: "proposed-by:agent-planner" },
    authority: "evidence",
    confidence: "verified",
    validFrom: "2026-10-01T09:00:00Z",
    evidenceRefs: ["pr:12"],
  }),
  // The current value the promotion minted: origin and authority kept, evidence merged.
  parseContextItem({
    id: "state_release_branch_c1",
    kind: "state",
    project: "demo",
    summary: "Releases are cut from the main branch",
    stateKey: "release.branch",
    status: "current",
    provenance: { sourceType: "peer", sourceRef: "promoted-by:kxm-admin" },
    authority: "evidence",
    confidence: "verified",
    validFrom: "2026-10-01T12:00:00Z",
    evidenceRefs: ["pr:12", "review:pr-12"],
    supersedes: ["state_release_branch_p1"],
  }),
];

const { packet, audit } = assemblePacket(pool, {
  project: "demo",
  role: "planner",
  task: "Which branch do we release from?",
});

console.log(JSON.stringify({ packet, audit }, null, 2));
// The guide's `jq -c '{state: ..., gaps: ..., relevance: ...}'` view of the same packet:
console.log(
  JSON.stringify({
    state: packet.currentState.map((item) => item.summary),
    gaps: packet.unresolvedGaps,
    relevance: audit.relevance,
  }),
);
