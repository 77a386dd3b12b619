import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import {
  commitAll,
  expectFailureLine,
  expectJsonFailure,
  gitRepo,
  json,
  kxm,
  put,
  read,
} from "./support/cli.js";

// `kxm run metrics` end to end: the built CLI, a real Git repository, and the runtime's fake agent script (a real
// process) failing the plan step's first attempt and passing its second, so the ledger holds known outcomes.

const FAKE_AGENT = fileURLToPath(
  new URL("../../runtime-dispatch/test/fixtures/fake-agent.mjs", import.meta.url),
);

const WORKFLOW = `steps:
  - id: plan
    agent: planner
    instructions: Write a plan for the fix.
    requiredEvidence: []
    allowedOutcomes: [done]
    permission: read-only
    attempts: 2
`;

const durations = (text: string) => text.replace(/\d+\.\d s/g, "<t> s");

let root: string;
beforeAll(async () => {
  root = await gitRepo("kxm-cli-metrics-");
  await put(root, ".kxm/workflows/fix.yaml", WORKFLOW);
  const agent = [
    process.execPath,
    FAKE_AGENT,
    "--fail-until",
    "2",
    "--failure",
    "no plan template",
    "--outcome",
    "done",
  ];
  await put(root, ".kxm/agents.yaml", `agents:\n  planner:\n    command: ${JSON.stringify(agent)}\n`);
  await put(root, ".gitignore", ".kxm/runs/\n");
  await commitAll(root, "a workflow whose plan step passes on its second attempt");
  for (const runId of ["run_a", "run_b"]) {
    const started = await kxm(["run", "start", "fix", "--prompt", "Fix it.", "--run-id", runId], {
      cwd: root,
    });
    expect(started.code, started.stderr).toBe(0);
  }
}, 120_000);

describe("kxm run metrics", () => {
  test("prints each run and attempt from the ledger, and says efficacy is diagnostic", async () => {
    const result = await kxm(["run", "metrics"], { cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(durations(result.stdout)).toBe(
      [
        "2 runs, 4 attempts, 2 verified",
        "",
        "Runs:",
        "  run    workflow  status     attempts  verified  failed  stopped by",
        "  run_a  fix       succeeded  2         1         1       -",
        "  run_b  fix       succeeded  2         1         1       -",
        "",
        "Attempts:",
        "  run    step  attempt  agent    result    duration  failure",
        "  run_a  plan  1        planner  failed    <t> s     no plan template",
        "  run_a  plan  2        planner  verified  <t> s     -",
        "  run_b  plan  1        planner  failed    <t> s     no plan template",
        "  run_b  plan  2        planner  verified  <t> s     -",
        "",
        "Skill efficacy: none carried yet.",
        "",
        "Memory efficacy: none carried yet.",
        "",
        "Efficacy is diagnostic: KXM never promotes or removes a skill or a fact because of it.",
        "",
      ].join("\n"),
    );
  });

  test("--json prints the ledger; --run keeps one run", async () => {
    const ledger = json<{ schema: string; attempts: Array<Record<string, unknown>>; runs: unknown[] }>(
      await kxm(["run", "metrics", "--run", "run_b", "--json"], { cwd: root }),
    );
    expect(ledger.schema).toBe("kxm.ledger.v1");
    expect(ledger.runs).toHaveLength(1);
    expect(
      ledger.attempts.map(({ runId, stepId, attempt, verified, retries, failure }) => ({
        runId,
        stepId,
        attempt,
        verified,
        retries,
        failure,
      })),
    ).toEqual([
      {
        runId: "run_b",
        stepId: "plan",
        attempt: 1,
        verified: false,
        retries: 0,
        failure: "no plan template",
      },
      { runId: "run_b", stepId: "plan", attempt: 2, verified: true, retries: 1, failure: "" },
    ]);
  });

  test("a corrupt ledger is rebuilt from the run folders, nothing lost", async () => {
    const before = json<{ attempts: unknown[] }>(await kxm(["run", "metrics", "--json"], { cwd: root }));
    await writeFile(join(root, ".kxm/runs/ledger.json"), "{ not json");
    const after = json<{ attempts: unknown[] }>(await kxm(["run", "metrics", "--json"], { cwd: root }));
    expect(after).toEqual(before);
    expect(JSON.parse(await read(root, ".kxm/runs/ledger.json"))).toEqual(before);
  });

  test("an unknown run or workflow is not_found, one line, exit 1", async () => {
    expectFailureLine(
      await kxm(["run", "metrics", "--run", "run_nope"], { cwd: root }),
      "run metrics",
      "run: the ledger has no run run_nope",
    );
    expectJsonFailure(
      await kxm(["run", "metrics", "--workflow", "nope", "--json"], { cwd: root }),
      "not_found",
    );
  });
});
