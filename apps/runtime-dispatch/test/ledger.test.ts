import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { executeRun, type Workflow } from "../src/index.js";
import { loadLedger } from "../src/learning/ledger.js";
import { commitAll, gitRepo, NOW, put, putFact, tempDir } from "./support/repo.js";

// The outcome ledger from real runs: a real git repository, agents played by test/fixtures/fake-agent.mjs (a real
// process), and executeRun's own ledger learner. Rows are checked field by field for a retried, a blocked and a
// broken run, with the memory item the prompts carried.
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

const PLAN: Workflow = {
  name: "fix-bug",
  steps: [
    {
      id: "plan",
      agent: "planner",
      instructions: "Write a plan for the fix.",
      requiredEvidence: [],
      allowedOutcomes: ["done"],
      permission: "read-only",
      attempts: 3,
    },
  ],
};

async function project(planner: string[], learning?: string) {
  const root = await gitRepo();
  await put(
    root,
    ".kxm/agents.yaml",
    `agents:\n  planner:\n    command: ${JSON.stringify([process.execPath, FAKE_AGENT, ...planner])}\n`,
  );
  await putFact(root, "use-pnpm", { summary: "Write a plan before the fix" });
  if (learning !== undefined) await put(root, ".kxm/learning.yaml", learning);
  await commitAll(root, "agents and a fact");
  return { root, out: await tempDir("kxm-fake-agent-out-") };
}

let hour = 0;
function start(root: string, out: string, runId: string) {
  let n = 0;
  const base = NOW.getTime() + hour++ * 3_600_000;
  return executeRun({
    root,
    workflow: PLAN,
    prompt: "Fix the flaky release test.",
    runId,
    project: "demo",
    now: () => new Date(base + 1_000 * n++),
    env: { ...process.env, FAKE_AGENT_OUT: out },
  });
}

const ledgerFile = async (root: string) =>
  JSON.parse(await readFile(join(root, ".kxm/runs/ledger.json"), "utf8"));
const rows = (ledger: { attempts: Array<Record<string, unknown>> }) =>
  ledger.attempts.map((row) => [
    row.runId,
    row.attempt,
    row.verified,
    row.retries,
    row.failure,
    row.blocked,
    row.breakerCause,
    row.memory,
    row.skills,
  ]);

describe("the outcome ledger", () => {
  it("rolls up a retried run, then a blocked one, keeping the first run's rows", async () => {
    const { root, out } = await project([
      "--fail-until",
      "2",
      "--failure-on",
      "1=no plan template",
      "--outcome",
      "done",
    ]);
    await start(root, out, "run_a");
    expect(rows(await ledgerFile(root))).toEqual([
      ["run_a", 1, false, 0, "no plan template", false, "", ["mem_use-pnpm"], []],
      ["run_a", 2, true, 1, "", false, "", ["mem_use-pnpm"], []],
    ]);

    // The same failure at attempt 1 and 2 of the next run: the step is blocked at attempt 2.
    await put(
      root,
      ".kxm/agents.yaml",
      `agents:\n  planner:\n    command: ${JSON.stringify([process.execPath, FAKE_AGENT, "--exit", "1", "--failure", "lockfile out of date"])}\n`,
    );
    await commitAll(root, "a failing planner");
    await start(root, out, "run_b");
    const ledger = await ledgerFile(root);
    expect(rows(ledger)).toEqual([
      ["run_a", 1, false, 0, "no plan template", false, "", ["mem_use-pnpm"], []],
      ["run_a", 2, true, 1, "", false, "", ["mem_use-pnpm"], []],
      ["run_b", 1, false, 0, "lockfile out of date", false, "", ["mem_use-pnpm"], []],
      ["run_b", 2, false, 1, "lockfile out of date", true, "", ["mem_use-pnpm"], []],
    ]);
    expect(
      ledger.runs.map((run: Record<string, unknown>) => [run.runId, run.status, run.blockedStep]),
    ).toEqual([
      ["run_a", "succeeded", null],
      ["run_b", "failed", "plan"],
    ]);
    // The fact was carried by every attempt of the step, so nothing is left to compare it with.
    expect(ledger.memory).toEqual([
      {
        id: "mem_use-pnpm",
        with: { n: 4, verified: 1, rate: 0.25, interval: expect.any(Object) },
        without: { n: 0, verified: 0, rate: null, interval: null },
      },
    ]);
  }, 60_000);

  it("puts the breaker's cause on the attempt that tripped it; a corrupt ledger is rebuilt", async () => {
    const { root, out } = await project(
      ["--exit", "1", "--failure-on", "1=alpha", "--failure-on", "2=beta", "--failure-on", "3=gamma"],
      "breaker:\n  consecutiveFailures: 2\n",
    );
    await start(root, out, "run_c");
    const ledger = await ledgerFile(root);
    expect(rows(ledger)).toEqual([
      ["run_c", 1, false, 0, "alpha", false, "", ["mem_use-pnpm"], []],
      ["run_c", 2, false, 1, "beta", false, "consecutive_failures:2", ["mem_use-pnpm"], []],
    ]);
    await writeFile(join(root, ".kxm/runs/ledger.json"), "{ not json");
    expect(await loadLedger(root)).toEqual(ledger);
    await expect(loadLedger(root, { runId: "run_x" })).rejects.toMatchObject({ code: "not_found" });
  }, 60_000);
});
