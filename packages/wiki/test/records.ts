import type { ContextItem, ReviewedJournalEntry, WikiRecords } from "@kxm/contract";

// Records as the hub's wiki-records route answers them, for the compiler's and linter's unit tests. The CLI tests
// compile records read from a real hub; these cover cases a hub cannot be driven into cheaply (odd ids, hostile
// summaries, two current values).

export function stateItem(
  id: string,
  key: string,
  summary: string,
  status: "current" | "superseded" | "proposed" | "rejected",
  validFrom: string,
  validUntil?: string,
): ContextItem {
  return {
    id,
    kind: "state",
    project: "demo",
    summary,
    provenance: {
      sourceType: "peer",
      sourceRef: status === "proposed" ? "proposed-by:agent" : "promoted-by:kxm-admin",
    },
    authority: "evidence",
    confidence: "verified",
    status,
    stateKey: key,
    validFrom,
    ...(validUntil === undefined ? {} : { validUntil }),
    evidenceRefs: ["pr:12", "review:pr-12"],
  };
}

export function journalRow(
  entryId: string,
  category: ReviewedJournalEntry["entry"]["category"],
  summary: string,
  createdAt: string,
): ReviewedJournalEntry {
  return {
    entry: { id: entryId, project: "demo", runId: "run-1", category, summary, createdAt },
    run: {
      id: "run-1",
      project: "demo",
      workflow: "release",
      status: "succeeded",
      startedAt: "2026-10-01T08:00:00.000Z",
      finishedAt: "2026-10-01T08:30:00.000Z",
    },
    review: {
      entryId,
      project: "demo",
      reviewedBy: "kxm-admin",
      reviewedAt: "2026-10-01T09:00:00.000Z",
      evidenceRefs: ["review:pr-20"],
    },
  };
}

export function sampleRecords(): WikiRecords {
  return {
    project: "demo",
    generatedAt: "2026-10-01T10:00:00.000Z",
    state: [
      stateItem(
        "state_a",
        "release.branch",
        "Releases are cut from main",
        "superseded",
        "2026-10-01T09:00:00.000Z",
        "2026-10-01T09:01:00.000Z",
      ),
      stateItem(
        "state_b",
        "release.branch",
        "Releases are cut from release branches",
        "current",
        "2026-10-01T09:01:00.000Z",
      ),
      stateItem(
        "state_c",
        "architecture.storage",
        "SQLite in WAL mode behind the KxmStore interface",
        "current",
        "2026-10-01T09:02:00.000Z",
      ),
    ],
    memory: [
      {
        id: "mem_test-runner",
        kind: "knowledge",
        project: "demo",
        summary: "Run the test suite with npm test before every commit",
        provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
        authority: "instruction",
        confidence: "verified",
        scope: "project",
      },
      {
        id: "mem_arch-layers",
        kind: "knowledge",
        project: "demo",
        summary: "Dependencies flow one way: packages never import apps",
        provenance: { sourceType: "git", sourceRef: "docs/ARCHITECTURE.md" },
        authority: "instruction",
        confidence: "verified",
        scope: "project",
      },
    ],
    skills: [
      {
        id: "skill_release-check.0123456789ab",
        kind: "skill",
        project: "demo",
        summary: "release-check: Check a release branch before tagging",
        provenance: { sourceType: "git", sourceRef: `skill:release-check.0123456789ab@${"a".repeat(64)}` },
        authority: "instruction",
        confidence: "verified",
      },
    ],
    journal: [
      journalRow("j_2", "error", "The nightly build timed out", "2026-10-01T08:10:00.000Z"),
      journalRow("j_1", "decision", "Adopt trunk-based development", "2026-10-01T08:05:00.000Z"),
      journalRow(
        "j_3",
        "contradiction",
        "The docs say npm, the scripts use pnpm",
        "2026-10-01T08:20:00.000Z",
      ),
    ],
    contradictions: {
      state: [{ stateKey: "deploy.day", itemIds: ["state_p2", "state_p1"] }],
      journal: ["journal_j_9", "journal_j_3"],
    },
  };
}
