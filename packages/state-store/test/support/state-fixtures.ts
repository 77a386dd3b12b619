import type { KxmStore, PacketRecordInput, StateProposalInput } from "../../src/index.js";

/** The guide's proposal: an agent (peer origin) proposes the release branch with one piece of evidence. */
export function guideProposal(overrides: Partial<StateProposalInput> = {}): StateProposalInput {
  return {
    project: "demo",
    key: "release.branch",
    summary: "Releases are cut from the main branch",
    authority: "evidence",
    confidence: "verified",
    evidenceRefs: ["pr:12"],
    origin: "peer",
    proposedBy: "agent-1",
    ...overrides,
  };
}

/** Proposes `summary` for `key` as agent-1 half a second before `when`, and promotes it as kxm-admin at `when`. */
export async function proposeAndPromote(
  store: KxmStore,
  key: string,
  summary: string,
  when: Date,
  project = "demo",
) {
  const proposal = await store.proposeState(
    guideProposal({ project, key, summary }),
    new Date(when.getTime() - 500),
  );
  return store.promoteState(
    { project, proposalId: proposal.id, promotedBy: "kxm-admin", evidenceRefs: ["review:1"] },
    when,
  );
}

/** A stored packet of `project` as a hub records it: an empty planner packet that read change 3. */
export function packetRecord(
  project: string,
  packetId: string,
  servedAt: Date,
  overrides: Partial<PacketRecordInput> = {},
): PacketRecordInput {
  return {
    project,
    packetId,
    runId: null,
    rankerVersion: "kxm-rank-1",
    requestSha256: "0".repeat(64),
    changeSeq: 3,
    sections: { contradictions: [], currentState: [], knowledge: [], evidence: [], episodes: [], skills: [] },
    audit: {
      request: { project, role: "planner", taskChars: 12 },
      selectedIds: [],
      candidateCount: 0,
      excludedSuperseded: 0,
      budgetTokens: 6000,
      estimatedTokens: 0,
      unresolvedGaps: [],
      relevance: { taskTokens: 2, matchedCandidates: 0, selected: [] },
      nearMisses: [],
    },
    inputs: null,
    servedAt,
    ...overrides,
  };
}
