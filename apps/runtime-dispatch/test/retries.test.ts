import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stepAttempts } from "../src/definitions/workflow.js";
import {
  executeRun,
  loadWorkflow,
  type ReportResult,
  type RunReporter,
  readRunStatus,
  type StepReport,
  type Workflow,
} from "../src/index.js";
import { readEpisodes } from "../src/learning/episodes.js";
import { commitAll, gitRepo, NOW, put, tempDir } from "./support/repo.js";

// Retries, `blocked` and the breaker, end to end: a real git repository and agents played by
// test/fixtures/fake-agent.mjs (a real process through the real adapter), which behaves by $KXM_ATTEMPT.
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

/** A one- or two-step workflow: `plan` with `attempts`, then `implement` (one attempt). */
function retrying(attempts: number | undefined, withImplement = true): Workflow {
  return {
    name: "fix-bug",
    steps: [
      {
        id: "plan",
        agent: "planner",
        instructions: "Write a plan for the fix.\nThen stop.",
        requiredEvidence: [],
        allowedOutcomes: ["done", "blocked"],
        permission: "read-only",
        ...(attempts === undefined ? {} : { attempts }),
      },
      ...(withImplement
        ? [
            {
              id: "implement",
              agent: "implementer",
              instructions: "Implement the fix.",
              requiredEvidence: ["diff"],
              allowedOutcomes: ["done"],
              permission: "workspace-write",
            },
          ]
        : []),
    ],
  };
}

async function project(agents: Record<string, string[]>, learning?: string) {
  const root = await gitRepo();
  const lines = ["agents:"];
  for (const [agent, args] of Object.entries(agents)) {
    lines.push(`  ${agent}:`, `    command: ${JSON.stringify([process.execPath, FAKE_AGENT, ...args])}`);
  }
  await put(root, ".kxm/agents.yaml", `${lines.join("\n")}\n`);
  if (learning !== undefined) await put(root, ".kxm/learning.yaml", learning);
  commitAll(root, "agents");
  return { root, out: await tempDir("kxm-fake-agent-out-") };
}

let tick = 0;
/** A clock that moves one second per call, so that every attempt has its own time. */
function clock(): () => Date {
  let n = 0;
  const base = NOW.getTime() + tick++ * 3_600_000;
  return () => new Date(base + 1_000 * n++);
}

function run(root: string, out: string, workflow: Workflow, extra: Record<string, unknown> = {}) {
  return executeRun({
    root,
    workflow,
    prompt: "Fix the flaky release test.",
    runId: "run_test",
    project: "demo",
    now: clock(),
    env: { ...process.env, FAKE_AGENT_OUT: out },
    ...extra,
  });
}

const summary = (
  results: Array<{ stepId: string; attempt: number; status: string; reason: string | null }>,
) => results.map((r) => [r.stepId, r.attempt, r.status, r.reason]);

async function episodeLines(root: string) {
  const { episodes, skipped } = await readEpisodes(root);
  expect(skipped).toBe(0);
  return episodes.map((e) => [e.runId, e.stepId, e.attempt, e.tried, e.progress, e.verified, e.failure]);
}

describe("step attempts", () => {
  it("reads attempts from the workflow file: 1 to 10, none meaning 1", async () => {
    const root = await gitRepo();
    const file = (attempts: string) =>
      `steps:\n  - id: plan\n    agent: planner\n    instructions: Plan.\n    requiredEvidence: []\n` +
      `    allowedOutcomes: [done]\n    permission: read-only\n${attempts}`;
    await put(root, ".kxm/workflows/ok.yaml", file("    attempts: 3\n"));
    await put(root, ".kxm/workflows/none.yaml", file(""));
    await put(root, ".kxm/workflows/many.yaml", file("    attempts: 11\n"));
    await put(root, ".kxm/workflows/zero.yaml", file("    attempts: 0\n"));
    expect((await loadWorkflow(root, "ok")).steps[0]!.attempts).toBe(3);
    expect(stepAttempts((await loadWorkflow(root, "none")).steps[0]!)).toBe(1);
    await expect(loadWorkflow(root, "many")).rejects.toThrow(
      /^\.kxm\/workflows\/many\.yaml:8: steps\[0\]\.attempts: /,
    );
    await expect(loadWorkflow(root, "zero")).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("retries a failed step until it completes, each attempt with its own number and files", async () => {
    const { root, out } = await project({
      planner: [
        "--fail-until",
        "3",
        "--failure-on",
        "1=npm is not installed",
        "--failure-on",
        "2=the lockfile is stale",
        "--tried",
        "ran the release test in a loop",
      ],
      implementer: ["--evidence", "diff=pr:1"],
    });
    const executed = await run(root, out, retrying(3));
    expect(summary(executed.attempts)).toEqual([
      ["plan", 1, "failed", "the agent ended with exit code 1"],
      ["plan", 2, "failed", "the agent ended with exit code 1"],
      ["plan", 3, "completed", null],
      ["implement", 1, "completed", null],
    ]);
    expect(summary(executed.steps)).toEqual([
      ["plan", 3, "completed", null],
      ["implement", 1, "completed", null],
    ]);
    expect(executed.outcome).toMatchObject({
      status: "succeeded",
      failingStep: null,
      reason: null,
      blockedStep: null,
      breakerCause: null,
    });
    expect(await episodeLines(root)).toEqual([
      ["run_test", "plan", 1, "ran the release test in a loop", false, false, "npm is not installed"],
      ["run_test", "plan", 2, "ran the release test in a loop", false, false, "the lockfile is stale"],
      ["run_test", "plan", 3, "ran the release test in a loop", true, true, ""],
      // No Tried: line: the first line of the instructions.
      ["run_test", "implement", 1, "Implement the fix.", true, true, ""],
    ]);
    const { episodes } = await readEpisodes(root);
    expect(episodes[0]).toMatchObject({
      schema: "kxm.episode.v1",
      at: "2026-09-01T12:00:02.000Z",
      workflow: "fix-bug",
      agent: "planner",
      failureKey: "npm is not installed",
    });

    for (const attempt of [1, 2, 3]) {
      const prompt = await readFile(join(root, `.kxm/runs/run_test/plan.${attempt}.prompt.md`), "utf8");
      expect(prompt).toContain(`**Step:** plan (Attempt ${attempt})`);
      expect(await readFile(join(out, `plan.${attempt}.prompt.md`), "utf8")).toBe(prompt);
      const env = JSON.parse(await readFile(join(out, `plan.${attempt}.env.json`), "utf8"));
      expect(env.KXM_ATTEMPT).toBe(String(attempt));
      const manifest = JSON.parse(
        await readFile(join(root, `.kxm/runs/run_test/plan.${attempt}.manifest.json`), "utf8"),
      );
      expect([manifest.attempt, manifest.packetId]).toEqual([attempt, `run_test:plan:${attempt}`]);
      const result = JSON.parse(
        await readFile(join(root, `.kxm/runs/run_test/plan.${attempt}.result.json`), "utf8"),
      );
      expect(result.attempt).toBe(attempt);
      expect(result.files.output).toBe(`.kxm/runs/run_test/plan.${attempt}.output.txt`);
    }
    // The next step is handed the attempt that completed, not the failed ones.
    const implement = await readFile(join(root, ".kxm/runs/run_test/implement.1.prompt.md"), "utf8");
    expect(implement).toContain("- .kxm/runs/run_test/plan.3.output.txt");
    expect(implement).not.toContain("plan.1.output.txt");
    const status = await readRunStatus(root, "run_test");
    expect(status.steps.map((s) => [s.stepId, s.status, s.attempt])).toEqual([
      ["plan", "completed", 3],
      ["implement", "completed", 1],
    ]);
  });

  it("gives a step one attempt by default, and ends the run when its attempts are used", async () => {
    const { root, out } = await project({ planner: ["--exit", "4"], implementer: [] });
    const once = await run(root, out, retrying(undefined));
    expect(summary(once.attempts)).toEqual([["plan", 1, "failed", "the agent ended with exit code 4"]]);
    expect(once.outcome).toMatchObject({
      status: "failed",
      failingStep: "plan",
      reason: "step plan: the agent ended with exit code 4",
      blockedStep: null,
      breakerCause: null,
    });

    const { root: other, out: otherOut } = await project({
      planner: ["--exit", "1", "--failure-on", "1=first", "--failure-on", "2=second"],
    });
    const twice = await run(other, otherOut, retrying(2, false));
    expect(summary(twice.attempts)).toEqual([
      ["plan", 1, "failed", "the agent ended with exit code 1"],
      ["plan", 2, "failed", "the agent ended with exit code 1"],
    ]);
    expect(twice.outcome).toMatchObject({
      status: "failed",
      failingStep: "plan",
      reason: "step plan: the agent ended with exit code 1",
      blockedStep: null,
      breakerCause: null,
    });
  });

  it("never retries a cancelled attempt or one that completed with another allowed outcome", async () => {
    const { root, out } = await project({ planner: ["--outcome", "blocked"], implementer: [] });
    const other = await run(root, out, retrying(3));
    expect(summary(other.attempts)).toEqual([
      ["plan", 1, "completed", "the step ended with outcome blocked"],
    ]);
    expect(other.outcome.reason).toBe("step plan: the step ended with outcome blocked");
    const { episodes } = await readEpisodes(root);
    expect(episodes.map((e) => [e.progress, e.verified, e.failure])).toEqual([
      [true, false, "the step ended with outcome blocked"],
    ]);

    const slow = await project({ planner: ["--sleep", "60000"], implementer: [] });
    const controller = new AbortController();
    const cancelled = await run(slow.root, slow.out, retrying(3), {
      signal: controller.signal,
      onProgress: (progress: { kind: string }) => {
        if (progress.kind === "step_started") setTimeout(() => controller.abort(), 200);
      },
    });
    expect(summary(cancelled.attempts)).toEqual([["plan", 1, "cancelled", "the run was cancelled"]]);
    expect(cancelled.outcome).toMatchObject({ status: "cancelled", failingStep: "plan" });
    expect((await readEpisodes(slow.root)).episodes).toHaveLength(1);
  }, 30_000);
});

describe("the same failure twice", () => {
  it("blocks the step at the attempt that repeats the previous failure and stops the run", async () => {
    // Digits differ ("line 12" / "line 13"): the same failure once normalized.
    const { root, out } = await project({
      planner: [
        "--exit",
        "1",
        "--failure-on",
        "1=release.test.ts line 12 timed out",
        "--failure-on",
        "2=release.test.ts line 13 timed out",
      ],
      implementer: [],
    });
    const executed = await run(root, out, retrying(5));
    expect(summary(executed.attempts)).toEqual([
      ["plan", 1, "failed", "the agent ended with exit code 1"],
      ["plan", 2, "blocked", "the same failure twice: release.test.ts line 13 timed out"],
    ]);
    expect(executed.outcome).toMatchObject({
      status: "failed",
      failingStep: "plan",
      reason: "step plan blocked: the same failure twice: release.test.ts line 13 timed out",
      blockedStep: "plan",
      breakerCause: null,
    });
    const saved = JSON.parse(await readFile(join(root, ".kxm/runs/run_test/plan.2.result.json"), "utf8"));
    expect(saved).toMatchObject({ attempt: 2, status: "blocked" });
    expect(await episodeLines(root)).toEqual([
      ["run_test", "plan", 1, "Write a plan for the fix.", false, false, "release.test.ts line 12 timed out"],
      ["run_test", "plan", 2, "Write a plan for the fix.", false, false, "release.test.ts line 13 timed out"],
    ]);
    const status = await readRunStatus(root, "run_test");
    expect(status).toMatchObject({ status: "failed", blockedStep: "plan", breakerCause: null });
    expect(status.steps.map((s) => [s.stepId, s.status, s.attempt])).toEqual([
      ["plan", "blocked", 2],
      ["implement", "pending", null],
    ]);
  });

  it("compares a first attempt with the same step's latest episode in an earlier run", async () => {
    const { root, out } = await project({ planner: ["--exit", "2"], implementer: [] });
    const first = await run(root, out, retrying(3, false), { runId: "run_one" });
    // Attempt 2 repeats attempt 1 ("exit code 2" both times): blocked within the run.
    expect(summary(first.attempts).map((row) => row[2])).toEqual(["failed", "blocked"]);
    const second = await run(root, out, retrying(3, false), { runId: "run_two" });
    expect(summary(second.attempts)).toEqual([
      ["plan", 1, "blocked", "the same failure twice: the agent ended with exit code 2"],
    ]);
    expect(second.outcome).toMatchObject({ blockedStep: "plan", failingStep: "plan" });

    // Another failure (exit codes alone do not differ once normalized) is not the same one; a success in
    // between clears the step's record.
    const planner = async (...args: string[]) => {
      const command = JSON.stringify([process.execPath, FAKE_AGENT, ...args]);
      await put(root, ".kxm/agents.yaml", `agents:\n  planner:\n    command: ${command}\n`);
    };
    await planner("--exit", "2", "--failure", "the lockfile is stale");
    const third = await run(root, out, retrying(1, false), { runId: "run_three" });
    expect(summary(third.attempts)).toEqual([["plan", 1, "failed", "the agent ended with exit code 2"]]);
    await planner();
    expect((await run(root, out, retrying(1, false), { runId: "run_four" })).outcome.status).toBe(
      "succeeded",
    );
    await planner("--exit", "2");
    const fifth = await run(root, out, retrying(1, false), { runId: "run_five" });
    expect(summary(fifth.attempts)).toEqual([["plan", 1, "failed", "the agent ended with exit code 2"]]);
    expect((await readEpisodes(root)).episodes.map((e) => `${e.runId}#${e.attempt}`)).toEqual([
      "run_one#1",
      "run_one#2",
      "run_two#1",
      "run_three#1",
      "run_four#1",
      "run_five#1",
    ]);
  });

  it("blocks a step that times out twice", async () => {
    const { root, out } = await project({});
    const command = JSON.stringify([process.execPath, FAKE_AGENT, "--sleep", "60000"]);
    await put(root, ".kxm/agents.yaml", `default:\n  command: ${command}\n  timeoutSeconds: 1\n`);
    commitAll(root, "slow agent");
    const executed = await run(root, out, retrying(3, false));
    expect(summary(executed.attempts)).toEqual([
      ["plan", 1, "timed_out", "timed out after 1 s"],
      ["plan", 2, "blocked", "the same failure twice: timed out after 1 s"],
    ]);
  }, 30_000);
});

describe("the breaker", () => {
  it("stops the run after breaker.consecutiveFailures failed attempts in a row", async () => {
    const { root, out } = await project(
      {
        planner: [
          "--exit",
          "1",
          "--failure-on",
          "1=alpha",
          "--failure-on",
          "2=beta",
          "--failure-on",
          "3=gamma",
        ],
      },
      "breaker:\n  consecutiveFailures: 2\n",
    );
    const executed = await run(root, out, retrying(5, false));
    expect(summary(executed.attempts)).toEqual([
      ["plan", 1, "failed", "the agent ended with exit code 1"],
      ["plan", 2, "failed", "the agent ended with exit code 1"],
    ]);
    expect(executed.outcome).toMatchObject({
      status: "failed",
      failingStep: "plan",
      reason:
        "step plan: the agent ended with exit code 1; the breaker stopped the run after 2 failed attempts in a row",
      blockedStep: null,
      breakerCause: "consecutive_failures:2",
    });
    expect((await readRunStatus(root, "run_test")).breakerCause).toBe("consecutive_failures:2");
    expect((await readEpisodes(root)).episodes.map((e) => e.failure)).toEqual(["alpha", "beta"]);
  });

  it("counts failed attempts across steps and resets on a step that completes", async () => {
    const { root, out } = await project(
      {
        planner: ["--fail-until", "3", "--failure-on", "1=one", "--failure-on", "2=two"],
        implementer: ["--exit", "1", "--failure-on", "1=three", "--failure-on", "2=four"],
      },
      "breaker:\n  consecutiveFailures: 3\n",
    );
    const workflow = retrying(3);
    workflow.steps[1]!.attempts = 3;
    const executed = await run(root, out, workflow);
    // plan fails twice then completes, which starts the count over; implement's third failure in a row trips it.
    expect(summary(executed.attempts).map((row) => `${row[0]}#${row[1]} ${row[2]}`)).toEqual([
      "plan#1 failed",
      "plan#2 failed",
      "plan#3 completed",
      "implement#1 failed",
      "implement#2 failed",
      "implement#3 failed",
    ]);
    expect(executed.outcome.breakerCause).toBe("consecutive_failures:3");
  });

  it("refuses a bad .kxm/learning.yaml before writing anything", async () => {
    const { root, out } = await project({ planner: [] }, "breaker:\n  consecutiveFailures: 0\n");
    await expect(run(root, out, retrying(1, false))).rejects.toMatchObject({ code: "invalid_request" });
    await expect(readFile(join(root, ".kxm/runs/run_test/run.json"))).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});

describe("what is reported and read back", () => {
  it("tells the hub of every attempt with its number and failure", async () => {
    const steps: StepReport[] = [];
    const reported = (): Promise<ReportResult> => Promise.resolve({ status: "reported" });
    const reporter: RunReporter = {
      runStarted: reported,
      stepFinished: (_run, step) => {
        steps.push(step);
        return reported();
      },
      runFinished: reported,
    };
    const { root, out } = await project({
      planner: ["--fail-until", "2", "--failure-on", "1=npm is not installed"],
      implementer: [],
    });
    await run(root, out, retrying(2), { reporter });
    expect(steps.map((s) => [s.stepId, s.attempt, s.status, s.failure])).toEqual([
      ["plan", 1, "failed", "npm is not installed"],
      ["plan", 2, "completed", ""],
      ["implement", 1, "completed", ""],
    ]);
  });

  it("reads an outcome written before blockedStep and breakerCause existed", async () => {
    const { root, out } = await project({ planner: [] });
    await run(root, out, retrying(1, false));
    const file = join(root, ".kxm/runs/run_test/outcome.json");
    const outcome = JSON.parse(await readFile(file, "utf8"));
    expect(outcome).toMatchObject({ blockedStep: null, breakerCause: null });
    delete outcome.blockedStep;
    delete outcome.breakerCause;
    await writeFile(file, JSON.stringify(outcome));
    expect(await readRunStatus(root, "run_test")).toMatchObject({
      status: "succeeded",
      blockedStep: null,
      breakerCause: null,
    });
  });
});
