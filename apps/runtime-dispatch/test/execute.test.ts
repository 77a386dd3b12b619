import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { adapterFor, parseAgentsConfig } from "../src/definitions/agents.js";
import { outputSnippet, readAgentReport, SNIPPET_CHARS } from "../src/execution/report.js";
import {
  executeRun,
  hubReporter,
  listRunStatuses,
  type ReportResult,
  type RunReporter,
  readManifests,
  readRunStatus,
  type StepReport,
} from "../src/index.js";
import { commitAll, gitRepo, NOW, promotedSkill, put, putFact, tempDir, workflow } from "./support/repo.js";

// Agents are played by test/fixtures/fake-agent.mjs, a real process started through the real adapter: no agent CLI
// (claude, codex, gemini) can run here.
const FAKE_AGENT = fileURLToPath(new URL("./fixtures/fake-agent.mjs", import.meta.url));

function agentsYaml(agents: Record<string, string[]>, extra = ""): string {
  const lines = ["agents:"];
  for (const [agent, args] of Object.entries(agents)) {
    lines.push(`  ${agent}:`, `    command: ${JSON.stringify([process.execPath, FAKE_AGENT, ...args])}`);
  }
  return `${lines.join("\n")}\n${extra}`;
}

async function project(agents: Record<string, string[]>): Promise<{ root: string; out: string }> {
  const root = await gitRepo();
  await putFact(root, "use-pnpm");
  await promotedSkill(root, "release-notes", "Draft release notes from merged pull requests");
  await put(root, ".kxm/agents.yaml", agentsYaml(agents));
  commitAll(root, "memory and agents");
  const out = await tempDir("kxm-fake-agent-out-");
  return { root, out };
}

function options(root: string, out: string, extra: Partial<Parameters<typeof executeRun>[0]> = {}) {
  return {
    root,
    workflow: workflow(),
    prompt: "Fix the flaky release test.",
    runId: "run_test",
    project: "demo",
    now: () => NOW,
    env: {
      ...process.env,
      FAKE_AGENT_OUT: out,
      KXM_AUTH_TOKEN: "admin-token-never-for-agents",
      KXM_OPERATOR_TOKEN: "kxo_operator-token-never-for-agents",
    },
    ...extra,
  };
}

const read = (root: string, rel: string) => readFile(join(root, rel), "utf8");

describe("executeRun", () => {
  it("dispatches every step through its adapter and hands earlier outputs to later steps", async () => {
    const { root, out } = await project({
      planner: ["--evidence", "plan=docs/plan.md", "--say", "The plan: retry the flaky step."],
      implementer: ["--evidence", "diff=pr:12", "--outcome", "done"],
    });
    const executed = await executeRun(options(root, out));
    expect(executed.outcome).toMatchObject({ status: "succeeded", failingStep: null, hub: "not_configured" });
    expect(executed.steps.map((step) => [step.stepId, step.status, step.outcome])).toEqual([
      ["plan", "completed", "done"],
      ["implement", "completed", "done"],
    ]);

    // What the agent received is exactly the saved prompt, and the saved prompt is what the manifest describes.
    for (const step of ["plan", "implement"]) {
      const saved = await read(root, `.kxm/runs/run_test/${step}.1.prompt.md`);
      expect(await readFile(join(out, `${step}.prompt.md`), "utf8")).toBe(saved);
      const manifest = JSON.parse(await read(root, `.kxm/runs/run_test/${step}.1.manifest.json`));
      expect(manifest.promptTokens).toBe(Math.ceil(saved.length / 4));
      expect(manifest.items.map((item: { id: string }) => item.id)).toContain("mem_use-pnpm");
    }
    const first = await read(root, ".kxm/runs/run_test/plan.1.prompt.md");
    expect(first).not.toContain("## 4. Predecessor Outputs");
    const second = await read(root, ".kxm/runs/run_test/implement.1.prompt.md");
    const section = second.slice(second.indexOf("## 4. Predecessor Outputs"), second.indexOf("## 5."));
    expect(section).toContain("### plan");
    expect(section).toContain("- .kxm/runs/run_test/plan.1.output.txt");
    expect(section).toContain("- plan: docs/plan.md");
    expect(section).toContain("The plan: retry the flaky step.");

    // Output and errors are captured; evidence is read; a missing required key is recorded, not fatal.
    expect(await read(root, ".kxm/runs/run_test/plan.1.output.txt")).toContain("Evidence: plan docs/plan.md");
    expect(await read(root, ".kxm/runs/run_test/plan.1.errors.txt")).toBe("fake agent done\n");
    expect(executed.steps[0]).toMatchObject({
      evidence: [{ key: "plan", ref: "docs/plan.md" }],
      missingEvidence: [],
    });
    expect(executed.steps[1]!.missingEvidence).toEqual(["test-log"]);

    // Agents get the run's coordinates, never the operator's hub credentials.
    const env = JSON.parse(await readFile(join(out, "implement.env.json"), "utf8"));
    expect(env).toMatchObject({
      KXM_RUN_ID: "run_test",
      KXM_STEP_ID: "implement",
      KXM_ATTEMPT: "1",
      KXM_ALLOWED_OUTCOMES: "done,blocked,needs-review",
      KXM_PROMPT_FILE: join(root, ".kxm/runs/run_test/implement.1.prompt.md"),
    });
    expect(env.KXM_AUTH_TOKEN).toBeUndefined();
    expect(env.KXM_OPERATOR_TOKEN).toBeUndefined();
  });

  it("logs dispatch_context_assembled with ids and gaps, never the prompt or item text", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    await putFact(root, "uncommitted", { summary: "A fact nobody reviewed yet" });
    await executeRun(options(root, out));
    const events = (await read(root, ".kxm/runs/run_test/events.jsonl"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.event)).toEqual([
      "run_started",
      "dispatch_context_assembled",
      "agent_step_finished",
      "dispatch_context_assembled",
      "agent_step_finished",
      "run_finished",
      "distill_finished",
    ]);
    const assembled = events.find((event) => event.event === "dispatch_context_assembled");
    expect(assembled).toMatchObject({
      runId: "run_test",
      stepId: "plan",
      packetId: "run_test:plan:1",
      role: "planner",
      itemIds: [],
      gaps: ["dispatch_context_withheld:uncommitted"],
    });
    const text = await read(root, ".kxm/runs/run_test/events.jsonl");
    for (const secret of ["Fix the flaky release test", "Write a plan", "Use pnpm", "nobody reviewed"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("gives the prompt as a file to an adapter with input: file", async () => {
    const { root, out } = await project({});
    await put(
      root,
      ".kxm/agents.yaml",
      `default:\n  command: ${JSON.stringify([process.execPath, FAKE_AGENT, "--file"])}\n  input: file\n`,
    );
    commitAll(root, "file input");
    const executed = await executeRun(options(root, out));
    expect(executed.outcome.status).toBe("succeeded");
    expect(executed.steps[0]!.adapter).toBe("default:command");
    expect(await readFile(join(out, "plan.prompt.md"), "utf8")).toBe(
      await read(root, ".kxm/runs/run_test/plan.1.prompt.md"),
    );
  });

  it("ends the run at a step whose outcome is not its first allowed one", async () => {
    const { root, out } = await project({ planner: ["--outcome", "blocked"], implementer: [] });
    const executed = await executeRun(options(root, out));
    expect(executed.outcome).toMatchObject({
      status: "failed",
      failingStep: "plan",
      reason: "step plan: the step ended with outcome blocked",
    });
    expect(executed.steps).toHaveLength(1);
    expect(existsSync(join(out, "implement.prompt.md"))).toBe(false);
    const status = await readRunStatus(root, "run_test");
    expect(status.steps.map((step) => step.status)).toEqual(["completed", "pending"]);
  });

  it("fails a step on an outcome it does not allow, a non-zero exit, or a missing program", async () => {
    const cases: Array<[string[], string]> = [
      [["--outcome", "shipped"], "outcome shipped is not allowed (allowed: done, blocked)"],
      [["--exit", "3"], "the agent ended with exit code 3"],
    ];
    for (const [args, reason] of cases) {
      const { root, out } = await project({ planner: args, implementer: [] });
      const executed = await executeRun(options(root, out));
      expect(executed.steps[0]).toMatchObject({ status: "failed", outcome: null, reason });
      expect(executed.outcome).toMatchObject({ status: "failed", failingStep: "plan" });
    }
    const { root, out } = await project({});
    await put(root, ".kxm/agents.yaml", "default:\n  command: [kxm-no-such-agent-cli]\n");
    commitAll(root, "missing");
    const executed = await executeRun(options(root, out));
    expect(executed.steps[0]).toMatchObject({
      status: "failed",
      reason: "command not found: kxm-no-such-agent-cli",
    });
  });

  it("stops an agent at its time limit, even one that ignores SIGTERM", async () => {
    const { root, out } = await project({});
    const command = JSON.stringify([process.execPath, FAKE_AGENT, "--sleep", "60000", "--stubborn"]);
    await put(root, ".kxm/agents.yaml", `default:\n  command: ${command}\n  timeoutSeconds: 1\n`);
    // The same stubborn agent would distil after the run, and take its own time limit and grace again.
    await put(root, ".kxm/learning.yaml", "distill:\n  enabled: false\n");
    commitAll(root, "slow agent");
    const started = Date.now();
    const executed = await executeRun(options(root, out));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(executed.steps[0]).toMatchObject({
      status: "timed_out",
      reason: "timed out after 1 s",
      exitCode: null,
    });
    expect(executed.outcome).toMatchObject({ status: "failed", failingStep: "plan" });
  }, 30_000);

  it("stops what an agent left running that holds its output open", async () => {
    const { root, out } = await project({});
    // The shell exits at once; the sleep it started keeps standard output open until the time limit stops both.
    await put(
      root,
      ".kxm/agents.yaml",
      `default:\n  command: [sh, -c, "sleep 60 & echo started"]\n  timeoutSeconds: 1\n`,
    );
    await put(root, ".kxm/learning.yaml", "distill:\n  enabled: false\n");
    commitAll(root, "agent with a background child");
    const started = Date.now();
    const executed = await executeRun(options(root, out));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(executed.steps[0]).toMatchObject({ status: "timed_out", reason: "timed out after 1 s" });
  }, 30_000);

  it("ends as failed, saying why, when the run cannot go on", async () => {
    const { root, out } = await project({});
    // The first agent makes the second step's prompt file a folder, so that step cannot be prepared.
    const blocker = "mkdir -p .kxm/runs/run_test/implement.1.prompt.md";
    await put(root, ".kxm/agents.yaml", `default:\n  command: [sh, -c, "${blocker}"]\n`);
    commitAll(root, "blocking agent");
    await expect(executeRun(options(root, out))).rejects.toThrow();
    const outcome = JSON.parse(await read(root, ".kxm/runs/run_test/outcome.json"));
    expect(outcome).toMatchObject({ status: "failed", failingStep: "implement" });
    expect(outcome.reason).toMatch(/^the run stopped: /);
    expect((await readRunStatus(root, "run_test")).status).toBe("failed");
  });

  it("ends as cancelled when aborted", async () => {
    const { root, out } = await project({ planner: ["--sleep", "60000"], implementer: [] });
    const controller = new AbortController();
    const running = executeRun(
      options(root, out, {
        signal: controller.signal,
        onProgress: (progress) => {
          if (progress.kind === "step_started") setTimeout(() => controller.abort(), 200);
        },
      }),
    );
    const executed = await running;
    expect(executed.steps[0]).toMatchObject({ status: "cancelled" });
    expect(executed.outcome).toMatchObject({ status: "cancelled", failingStep: "plan" });
  }, 30_000);

  it("refuses an agent without an adapter before writing anything", async () => {
    const { root, out } = await project({ planner: [] });
    await expect(executeRun(options(root, out))).rejects.toMatchObject({
      code: "invalid_request",
      message:
        "no adapter for agent implementer: add it under agents: in .kxm/agents.yaml, or set a default: there",
    });
    expect(existsSync(join(root, ".kxm/runs"))).toBe(false);
  });
});

describe("reporting to a hub", () => {
  function recorder(): { reporter: RunReporter; calls: unknown[] } {
    const calls: unknown[] = [];
    const answer = (call: unknown): Promise<ReportResult> => {
      calls.push(call);
      return Promise.resolve({ status: "reported" });
    };
    return {
      calls,
      reporter: {
        runStarted: (run) => answer(["start", run.runId]),
        stepFinished: (_run, step: StepReport) => answer(["step", step.stepId, step.status]),
        runFinished: (_run, outcome) => answer(["finish", outcome]),
      },
    };
  }

  it("reports the run, each step and the finish", async () => {
    const { root, out } = await project({ planner: [], implementer: ["--exit", "1"] });
    const { reporter, calls } = recorder();
    const executed = await executeRun(options(root, out, { reporter }));
    expect(calls).toEqual([
      ["start", "run_test"],
      ["step", "plan", "completed"],
      ["step", "implement", "failed"],
      ["finish", { status: "failed", failingStep: "implement" }],
    ]);
    expect(executed.steps.map((step) => step.hub)).toEqual(["reported", "reported"]);
    expect(executed.outcome.hub).toBe("reported");
    const saved = JSON.parse(await read(root, ".kxm/runs/run_test/implement.1.result.json"));
    expect(saved.hub).toBe("reported");
  });

  it("goes on when the hub is down, and logs each failed report", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const reporter = hubReporter({ url: `http://127.0.0.1:${port}`, token: "key" });
    const executed = await executeRun(options(root, out, { reporter }));
    expect(executed.outcome).toMatchObject({ status: "succeeded", hub: "failed:run_not_recorded" });
    expect(executed.steps.map((step) => step.hub)).toEqual([
      "failed:run_not_recorded",
      "failed:run_not_recorded",
    ]);
    const events = await read(root, ".kxm/runs/run_test/events.jsonl");
    expect(events).toContain(
      '"event":"hub_report_failed","runId":"run_test","call":"startRun","code":"hub_unreachable"',
    );
    expect(events).not.toContain("key");
  });
});

describe("status and manifests", () => {
  it("reads a run's status and lists runs newest first", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    await executeRun(options(root, out));
    await executeRun(options(root, out, { runId: "run_later", now: () => new Date("2026-09-02T00:00:00Z") }));
    const status = await readRunStatus(root, "run_test");
    expect(status).toMatchObject({
      runId: "run_test",
      workflow: "fix-bug",
      status: "succeeded",
      steps: [
        { stepId: "plan", status: "completed", outcome: "done", attempt: 1 },
        { stepId: "implement", status: "completed", outcome: "done", missingEvidence: ["diff", "test-log"] },
      ],
    });
    expect((await listRunStatuses(root)).map((run) => run.runId)).toEqual(["run_later", "run_test"]);
    const manifests = await readManifests(root, "run_test");
    expect(manifests.map((manifest) => manifest.stepId)).toEqual(["plan", "implement"]);
    await expect(readManifests(root, "run_test", "review")).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(readRunStatus(root, "run_none")).rejects.toMatchObject({ code: "not_found" });
  });

  it("reads each step's latest attempt, by number, for its status and its manifest", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    await executeRun(options(root, out));
    const dir = join(root, ".kxm/runs/run_test");
    const result = JSON.parse(await read(root, ".kxm/runs/run_test/plan.1.result.json"));
    const manifest = JSON.parse(await read(root, ".kxm/runs/run_test/plan.1.manifest.json"));
    // Attempts 2 and 10: the latest is the larger number, not the later name.
    for (const attempt of [2, 10]) {
      await writeFile(
        join(dir, `plan.${attempt}.result.json`),
        JSON.stringify({ ...result, attempt, outcome: `retry-${attempt}` }),
      );
      await writeFile(join(dir, `plan.${attempt}.manifest.json`), JSON.stringify({ ...manifest, attempt }));
    }
    const status = await readRunStatus(root, "run_test");
    expect(status.steps[0]).toMatchObject({ stepId: "plan", attempt: 10, outcome: "retry-10" });
    expect(status.steps[1]).toMatchObject({ stepId: "implement", attempt: 1 });
    const manifests = await readManifests(root, "run_test");
    expect(manifests.map((m) => [m.stepId, m.attempt])).toEqual([
      ["plan", 10],
      ["implement", 1],
    ]);
    expect((await readManifests(root, "run_test", "plan")).map((m) => m.stepId)).toEqual(["plan"]);
  });

  it("tells an interrupted run from a running one", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    await executeRun(options(root, out));
    const file = join(root, ".kxm/runs/run_test/implement.1.result.json");
    const result = JSON.parse(await readFile(file, "utf8"));
    await writeFile(file, JSON.stringify({ ...result, status: "running", pid: process.pid }));
    await rm(join(root, ".kxm/runs/run_test/outcome.json"));
    expect((await readRunStatus(root, "run_test")).status).toBe("running");
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    await writeFile(file, JSON.stringify({ ...result, status: "running", pid: gone }));
    const status = await readRunStatus(root, "run_test");
    expect(status.status).toBe("interrupted");
    expect(status.steps[1]!.status).toBe("interrupted");
  });

  it("reads a run between two steps as running while its process lives, interrupted once it is gone", async () => {
    const { root, out } = await project({ planner: [], implementer: [] });
    await executeRun(options(root, out));
    expect(JSON.parse(await readFile(join(root, ".kxm/runs/run_test/executor.json"), "utf8"))).toEqual({
      pid: process.pid,
    });
    // As the files stand after the first step, with the executing process alive and then gone.
    await rm(join(root, ".kxm/runs/run_test/implement.1.result.json"));
    await rm(join(root, ".kxm/runs/run_test/outcome.json"));
    expect((await readRunStatus(root, "run_test")).status).toBe("running");
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    await writeFile(join(root, ".kxm/runs/run_test/executor.json"), JSON.stringify({ pid: gone }));
    const status = await readRunStatus(root, "run_test");
    expect(status.status).toBe("interrupted");
    expect(status.steps.map((step) => step.status)).toEqual(["completed", "pending"]);
  });
});

describe("agents.yaml", () => {
  it("resolves profiles, commands and the default", () => {
    const config = parseAgentsConfig(
      [
        "default:",
        "  profile: claude",
        "agents:",
        "  critic-arch:",
        "    profile: codex",
        "    args: [--model, o4]",
        "  verifier:",
        "    profile: gemini",
        "    timeoutSeconds: 60",
        "  tester:",
        "    command: [./agent.sh, --prompt, '{promptFile}']",
        "    input: file",
      ].join("\n"),
    );
    expect(adapterFor(config, "critic-arch")).toEqual({
      argv: ["codex", "exec", "--model", "o4", "-"],
      input: "stdin",
      timeoutMs: 1_800_000,
      source: "profile:codex",
    });
    expect(adapterFor(config, "verifier")).toMatchObject({ argv: ["gemini"], timeoutMs: 60_000 });
    expect(adapterFor(config, "tester")).toMatchObject({
      argv: ["./agent.sh", "--prompt", "{promptFile}"],
      input: "file",
    });
    expect(adapterFor(config, "planner")).toMatchObject({
      argv: ["claude", "-p"],
      source: "default:profile:claude",
    });
    expect(adapterFor(parseAgentsConfig("# nothing yet\n"), "planner")).toBeUndefined();
  });

  it("names the file, the line and the rule of a mistake", () => {
    const cases: Array<[string, string]> = [
      ["agents:\n  planner:\n    profile: cursor\n", ".kxm/agents.yaml:3: agents.planner.profile:"],
      [
        "agents:\n  planner:\n    profile: claude\n    command: [x]\n",
        ".kxm/agents.yaml:3: agents.planner: must set exactly one of profile and command",
      ],
      [
        "agents:\n  planner:\n    command: [x]\n    args: [y]\n",
        ".kxm/agents.yaml:4: agents.planner.args: is only for a profile",
      ],
      [
        "agents:\n  planner:\n    command: []\n",
        ".kxm/agents.yaml:3: agents.planner.command: must name the program",
      ],
      [
        "agents:\n  planner:\n    command: [x]\n    timeoutSeconds: 0.5\n",
        ".kxm/agents.yaml:4: agents.planner.timeoutSeconds: must be a whole number",
      ],
      ["agent:\n  planner: {}\n", '.kxm/agents.yaml:1: (document): unknown key "agent"'],
      ["agents: [\n", ".kxm/agents.yaml:2: is not valid YAML"],
      // An alias could expand one node many times over (a "billion laughs" file): refused outright.
      [
        "default: &agent\n  command: [x]\nagents:\n  planner: *agent\n",
        ".kxm/agents.yaml: YAML aliases are not allowed",
      ],
    ];
    for (const [text, message] of cases) {
      let caught: unknown;
      try {
        parseAgentsConfig(text);
      } catch (error) {
        caught = error;
      }
      expect(caught, text).toMatchObject({ code: "invalid_request" });
      expect((caught as Error).message.startsWith(message), (caught as Error).message).toBe(true);
    }
  });
});

describe("what agents print", () => {
  it("reads the last outcome line and every evidence line, through Markdown decoration", () => {
    const report = readAgentReport(
      [
        "Working…",
        "Outcome: blocked",
        "- **Evidence:** diff patches/fix_1.diff",
        "Evidence: test-log = ci:run/42",
        "evidence: diff pr:12",
        "**Outcome:** needs_review",
        "The outcome: unclear",
      ].join("\n"),
    );
    expect(report).toEqual({
      outcome: "needs_review",
      evidence: [
        { key: "test-log", ref: "ci:run/42" },
        { key: "diff", ref: "pr:12" },
      ],
    });
    expect(readAgentReport("no report here")).toEqual({ evidence: [] });
  });

  it("keeps the end of long output from a line boundary, redacted", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of the agent's answer`);
    lines.push("token ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    const snippet = outputSnippet(lines.join("\n"))!;
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS);
    expect(snippet.startsWith("line ")).toBe(true);
    expect(snippet).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(outputSnippet("  \n")).toBeUndefined();
  });
});
