import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { attemptFailure, earlierFailureKey } from "../src/execution/attempt-episode.js";
import { readAgentReport } from "../src/execution/report.js";
import { executeRun, type Run, type Workflow } from "../src/index.js";
import { EPISODE_SCHEMA, type Episode, normalizeFailure, readEpisodes } from "../src/learning/episodes.js";
import { commitAll, gitRepo, NOW, put, tempDir } from "./support/repo.js";

// The episode each step attempt appends: what the agent said it tried and why it failed (its `Tried:` and
// `Failure:` lines), else what the runner knows; secrets redacted. Agents are test/fixtures/fake-agent.mjs.
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

const WORKFLOW: Workflow = {
  name: "fix-bug",
  steps: [
    {
      id: "plan",
      agent: "planner",
      instructions: "\n  Write a plan for the fix.  \nThen stop.",
      requiredEvidence: ["plan"],
      allowedOutcomes: ["done"],
      permission: "read-only",
    },
  ],
};

async function runWith(args: string[]) {
  const root = await gitRepo();
  const command = JSON.stringify([process.execPath, FAKE_AGENT, ...args]);
  await put(root, ".kxm/agents.yaml", `agents:\n  planner:\n    command: ${command}\n`);
  commitAll(root, "agents");
  const out = await tempDir("kxm-fake-agent-out-");
  const executed = await executeRun({
    root,
    workflow: WORKFLOW,
    prompt: "Fix it.",
    runId: "run_test",
    project: "demo",
    now: () => NOW,
    env: { ...process.env, FAKE_AGENT_OUT: out },
  });
  const { episodes, skipped } = await readEpisodes(root);
  expect(skipped).toBe(0);
  return { executed, episodes, root };
}

describe("Tried: and Failure: lines", () => {
  it("reads the last of each, through Markdown decoration", () => {
    const report = readAgentReport(
      [
        "Tried: one thing",
        "- **Tried:** `pnpm test --filter release`",
        "Failure: first",
        "> **failure:** the lockfile is stale",
        "Tried:",
      ].join("\n"),
    );
    expect(report).toEqual({
      tried: "pnpm test --filter release",
      failure: "the lockfile is stale",
      evidence: [],
    });
  });

  it("takes the agent's Failure: only from a failed attempt, else the runner's reason", () => {
    const reported = { failure: "npm missing", evidence: [] };
    expect(attemptFailure({ status: "failed", reason: "the agent ended with exit code 1" }, reported)).toBe(
      "npm missing",
    );
    expect(
      attemptFailure({ status: "failed", reason: "the agent ended with exit code 1" }, { evidence: [] }),
    ).toBe("the agent ended with exit code 1");
    expect(attemptFailure({ status: "completed", reason: null }, reported)).toBe("");
    expect(
      attemptFailure({ status: "completed", reason: "the step ended with outcome blocked" }, reported),
    ).toBe("the step ended with outcome blocked");
  });
});

describe("the episode of an attempt", () => {
  it("records a verified attempt with the agent's Tried: line", async () => {
    const { executed, episodes } = await runWith([
      "--tried",
      "drafted three options",
      "--evidence",
      "plan=p.md",
    ]);
    expect(executed.outcome.status).toBe("succeeded");
    // The learners ran after the run's end: the ledger, distillation (the fake agent plays the default agent) and the
    // retrospective.
    expect(executed.learning).toEqual([
      { name: "ledger", status: "done" },
      { name: "distill", status: "done" },
      { name: "retrospective", status: "done" },
    ]);
    expect(episodes).toEqual([
      {
        schema: EPISODE_SCHEMA,
        at: NOW.toISOString(),
        runId: "run_test",
        workflow: "fix-bug",
        stepId: "plan",
        agent: "planner",
        attempt: 1,
        tried: "drafted three options",
        progress: true,
        verified: true,
        failure: "",
        failureKey: "",
        durationMs: executed.attempts[0]!.durationMs,
      },
    ]);
  });

  it("is progress but not verified without the required evidence, and tried is the first instruction line", async () => {
    const { episodes } = await runWith([]);
    expect(episodes.map((e) => [e.tried, e.progress, e.verified, e.failure])).toEqual([
      ["Write a plan for the fix.", true, false, ""],
    ]);
  });

  it("keeps a failure as one redacted line, normalized into its key", async () => {
    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const { executed, episodes } = await runWith([
      "--exit",
      "1",
      "--failure",
      `push refused for token ${secret} after 3 tries at 1a2b3c4d5e`,
    ]);
    expect(executed.attempts[0]!.status).toBe("failed");
    expect(episodes).toHaveLength(1);
    const [episode] = episodes as [Episode];
    expect(episode.failure).not.toContain(secret);
    expect(episode.failure).toMatch(/^push refused for token \S+ after 3 tries at 1a2b3c4d5e$/);
    expect(episode.failureKey).toMatch(/^push refused for token \S+ after # tries at #$/);
    expect([episode.progress, episode.verified]).toEqual([false, false]);
  });
});

describe("the normalized failure", () => {
  it("keeps exit codes apart and folds durations, counts and hex ids", () => {
    expect(normalizeFailure("the agent ended with exit code 2")).not.toBe(
      normalizeFailure("the agent ended with exit code 3"),
    );
    expect(normalizeFailure("Exited with status 1 after 12.5 s")).toBe(
      normalizeFailure("exited with status 1 after 3 s"),
    );
    expect(normalizeFailure("build 'failed' at deadbeef1 line 40")).toBe("build failed at # line #");
  });
});

describe("the latest earlier episode", () => {
  const run = { runId: "run_now", workflow: { name: "fix-bug" } } as Run;
  const episode = (runId: string, at: string, failureKey: string, stepId = "plan"): Episode => ({
    schema: EPISODE_SCHEMA,
    at,
    runId,
    workflow: "fix-bug",
    stepId,
    agent: "planner",
    attempt: 1,
    tried: "",
    progress: failureKey === "",
    verified: failureKey === "",
    failure: failureKey,
    failureKey,
    durationMs: 0,
  });

  it("is the latest by time of the same workflow and step in another run, when it failed", () => {
    const episodes = [
      episode("run_b", "2026-09-01T12:00:02.000Z", "b"),
      episode("run_a", "2026-09-01T12:00:01.000Z", "a"),
      episode("run_now", "2026-09-01T12:00:03.000Z", "mine"),
      episode("run_c", "2026-09-01T12:00:04.000Z", "other step", "implement"),
      { ...episode("run_d", "2026-09-01T12:00:05.000Z", "other workflow"), workflow: "release" },
    ];
    expect(earlierFailureKey(episodes, run, "plan")).toBe("b");
    expect(
      earlierFailureKey([...episodes, episode("run_e", "2026-09-01T12:00:06.000Z", "")], run, "plan"),
    ).toBe(null);
    expect(earlierFailureKey([], run, "plan")).toBe(null);
  });
});
