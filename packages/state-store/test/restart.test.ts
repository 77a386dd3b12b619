import { join } from "node:path";
import { expect, test } from "vitest";
import type { KxmStore } from "../src/index.js";
import { guideProposal, proposeAndPromote } from "./support/state-fixtures.js";
import { at, open, T0, tempDir } from "./support/temp-store.js";

async function snapshot(store: KxmStore) {
  return {
    projects: await store.listProjects(),
    items: await store.liveItems("demo"),
    history: await store.stateHistory("demo", "release.branch"),
    current: await store.currentState("demo", "release.branch", at(T0, 10_000)),
    contradictions: await store.openContradictions("demo"),
    journal: await store.listJournal("demo"),
    episodes: await store.listEpisodes("demo", { limit: 50 }),
    runs: [await store.getRun("demo", "r1"), await store.getRun("demo", "r2")],
  };
}

test("closing and reopening keeps every acknowledged write, read back deep-equal", async () => {
  const file = join(tempDir(), "nested", "state", "kxm.db");
  const first = await open(file);
  await first.createProject({ id: "demo", checkoutRoot: "/srv/demo" }, at(T0));
  const { key } = await first.createAgentKey("demo", "agent-1", at(T0));
  const revoked = await first.createAgentKey("demo", "agent-2", at(T0));
  await first.revokeAgentKey("demo", "agent-2", at(T0, 1));
  await proposeAndPromote(first, "release.branch", "From main", at(T0, 1000));
  await proposeAndPromote(first, "release.branch", "From release/*", at(T0, 2000));
  await first.proposeState(guideProposal({ summary: "From trunk" }), at(T0, 3000));
  await first.proposeState(guideProposal({ summary: "From develop", proposedBy: "agent-2" }), at(T0, 3001));
  await first.startRun({ project: "demo", workflow: "ci", runId: "r1" }, at(T0, 4000));
  await first.appendJournal(
    { project: "demo", runId: "r1", category: "lesson", summary: "Pin tools", evidenceRefs: ["ci:1"] },
    at(T0, 4500),
  );
  await first.finishRun(
    { project: "demo", runId: "r1", outcome: "failed", failingStep: "test" },
    at(T0, 5000),
  );
  await first.startRun({ project: "demo", workflow: "ci", runId: "r2" }, at(T0, 6000));
  const before = await snapshot(first);
  await first.close();

  const second = await open(file);
  expect(second.path).toBe(file);
  expect(await snapshot(second)).toEqual(before);
  expect(await second.authenticateAgent(key)).toEqual({ project: "demo", agentId: "agent-1" });
  expect(await second.authenticateAgent(revoked.key)).toBeUndefined();
  expect(before.items.length).toBe(7);
  expect(before.contradictions.length).toBe(1);
});
