import type { ContextItem } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import type { ContextEntry, DispatchContext } from "../../src/dispatch/dispatch-context.js";
import type { Run } from "../../src/index.js";
import { workflow } from "./repo.js";

/** A knowledge item (project `demo`, or `_shared` when `shared`). */
export function knowledge(id: string, summary: string, shared = false): ContextEntry {
  const item: ContextItem = parseContextItem({
    id,
    kind: "knowledge",
    project: shared ? "_shared" : "demo",
    summary,
    provenance: { sourceType: "git", sourceRef: `.kxm/memory/${id}.md` },
    authority: "instruction",
    confidence: "verified",
  });
  return { item, score: 0.5 };
}

/** An episode item of the digest, as `learning/digest.ts` builds it. */
export function episodeEntry(id: string, summary: string, score = 0.25): ContextEntry {
  const item: ContextItem = parseContextItem({
    id,
    kind: "episode",
    project: "demo",
    summary,
    provenance: { sourceType: "workflow", sourceRef: "run:run_old" },
    authority: "evidence",
    confidence: "probable",
    observedAt: "2026-08-30T09:15:00.000Z",
  });
  return { item, score };
}

function entry(raw: Record<string, unknown>, score = 0): ContextEntry {
  return { item: parseContextItem(raw), score };
}

/** A run built in memory, as createRun would write it. */
export function memoryRun(prompt = "Fix the flaky release test."): Run {
  return {
    schema: "kxm.run.v1",
    runId: "run_test",
    project: "demo",
    workflow: workflow(),
    prompt,
    createdAt: "2026-09-01T12:00:00.000Z",
    memoryRevision: `ctxrev_${"0".repeat(64)}`,
  };
}

/** A dispatch context with every section filled. */
export function fullContext(): DispatchContext {
  return {
    role: "implementer",
    revision: `ctxrev_${"0".repeat(64)}`,
    sharedDefaults: [knowledge("mem_house-style", "Write British English in docs", true)],
    currentState: [
      entry({
        id: "state_release-branch",
        kind: "state",
        project: "demo",
        summary: "Releases are cut from the main branch",
        stateKey: "release.branch",
        status: "current",
        provenance: { sourceType: "human", sourceRef: "promoted-by:alice" },
        authority: "instruction",
        confidence: "verified",
      }),
    ],
    projectItems: [
      knowledge("mem_use-pnpm", "Use pnpm, not npm, in this repository"),
      knowledge("mem_test-runner", "Run the test suite with pnpm test before every commit"),
    ],
    skills: [
      entry({
        id: "skill_release-notes.0123456789ab",
        kind: "skill",
        project: "demo",
        summary: "release-notes: Draft release notes from merged pull requests",
        provenance: { sourceType: "git", sourceRef: `skill:release-notes.0123456789ab@${"ab".repeat(32)}` },
        authority: "instruction",
        confidence: "verified",
      }),
    ],
    contradictions: [
      entry({
        id: "journal_42",
        kind: "evidence",
        project: "demo",
        summary: "CI says Node 20, the Dockerfile says Node 22",
        provenance: { sourceType: "workflow", sourceRef: "journal:42" },
        authority: "evidence",
        confidence: "probable",
      }),
    ],
    episodes: [],
    gaps: [],
  };
}
