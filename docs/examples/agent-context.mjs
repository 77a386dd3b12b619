// How an agent keeps a PoolIndex of its project's records and asks it for packets and recall.
import { PoolIndex } from "@kxm/arbiter";
import { journalEntryToItem, parseContextItem } from "@kxm/provenance";

// Admit every record through parseContextItem: it enforces origin ceilings, refuses control-plane fields
// and redacts secrets before anything is stored.
const fact = parseContextItem({
  id: "mem_test-runner",
  kind: "knowledge",
  project: "demo",
  summary: "Run the test suite with npm test before every commit",
  provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
  authority: "instruction",
  confidence: "verified",
});
const lesson = journalEntryToItem({
  id: "e1",
  project: "demo",
  runId: "run_7",
  category: "lesson",
  summary:
    "The flaky Playwright gates timed out on CI; retries: 2 fixed it. Token was ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  evidenceRefs: ["ci:run-7"],
  createdAt: "2026-10-02T08:00:00Z",
});
const proposals = ["main", "trunk"].map((branch, i) =>
  parseContextItem({
    id: `state_p${i + 1}`,
    kind: "state",
    project: "demo",
    summary: `Releases are cut from the ${branch} branch`,
    stateKey: "release.branch",
    status: "proposed",
    provenance: { sourceType: "peer", sourceRef: `proposed-by:agent-${i + 1}` },
    authority: "evidence",
    confidence: "probable",
    evidenceRefs: [`pr:${20 + i}`],
  }),
);

// Build once; update item by item as records change.
const index = new PoolIndex([fact, lesson, ...proposals]);

// Two pending proposals for one key are an open contradiction: every packet shows them first.
const { packet, audit } = index.assemble(
  {
    project: "demo",
    role: "critic",
    task: "Why did the Playwright tests time out on CI?",
    budgetTokens: 1000,
  },
  { contradictionIds: proposals.map((item) => item.id) },
);
console.log(JSON.stringify({ contradictions: packet.contradictions.map((item) => item.summary) }));
console.log(JSON.stringify({ knowledge: packet.knowledge.map((item) => item.summary) }));
console.log(JSON.stringify({ relevance: audit.relevance }));

// Recall answers with metadata only, never summaries.
const { items } = index.recall({ project: "demo", query: "playwright" });
console.log(JSON.stringify({ recall: items.map(({ id, kind, relevance }) => ({ id, kind, relevance })) }));

// A promotion supersedes the proposals: replace them in the index.
index.replace({ ...proposals[0], id: "state_p1", status: "rejected" });
index.replace({ ...proposals[1], id: "state_p2", status: "rejected" });
const after = index.assemble({ project: "demo", role: "planner", task: "" });
console.log(JSON.stringify({ excludedSuperseded: after.audit.excludedSuperseded }));
