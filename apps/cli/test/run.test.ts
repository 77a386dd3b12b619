import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BIN,
  baseEnv,
  commitAll,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  put,
  read,
} from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm run` end to end: the built CLI, a real Git repository, agents played by the runtime package's fake agent
// script (a real process; no agent CLI such as claude can run here) and a real hub on a loopback port.

const FAKE_AGENT = fileURLToPath(
  new URL("../../runtime-dispatch/test/fixtures/fake-agent.mjs", import.meta.url),
);
const ADMIN_TOKEN = "test-admin-token-run-0123456789";

const WORKFLOW = `steps:
  - id: plan
    agent: planner
    instructions: Write a plan for the fix.
    requiredEvidence: [plan]
    allowedOutcomes: [done, blocked]
    permission: read-only
  - id: implement
    agent: implementer
    instructions: Implement the fix and run the tests with pnpm.
    requiredEvidence: [diff]
    allowedOutcomes: [done, blocked]
    permission: workspace-write
`;

const FACT = `---
schema: kxm.memory.v1
id: use-pnpm
scope: project
kind: convention
summary: Use pnpm, not npm, in this repository
provenance:
  sourceType: git
  sourceRef: docs/tooling.md
authority: instruction
confidence: verified
lifecycle: active
---
`;

function agents(planner: string[], implementer: string[] = []): string {
  const command = (args: string[]) => JSON.stringify([process.execPath, FAKE_AGENT, ...args]);
  return `agents:\n  planner:\n    command: ${command(planner)}\n  implementer:\n    command: ${command(implementer)}\n`;
}

async function project(planner: string[] = ["--evidence", "plan=docs/plan.md"], implementer: string[] = []) {
  const root = await gitRepo("kxm-cli-run-");
  await put(root, ".kxm/workflows/fix-bug.yaml", WORKFLOW);
  await put(root, ".kxm/memory/use-pnpm.md", FACT);
  await put(root, ".kxm/agents.yaml", agents(planner, implementer));
  await commitAll(root, "workflow, memory and agents");
  return root;
}

/** Polls `probe` every 50 ms until it gives a value (a failed read counts as none), for at most 10 s. */
async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let hub: { url: string; close(): Promise<void> };

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  await createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN }).createProject({ body: { id: "demo" } });
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe("kxm run start", () => {
  test("dispatches the steps in order and prints one line per step", async () => {
    const root = await project();
    const result = await kxm(
      ["run", "start", "fix-bug", "--prompt", "Fix the flaky test.", "--run-id", "run-1"],
      {
        cwd: root,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^Run run-1 of fix-bug: 2 steps, memory ctxrev_[0-9a-f]{64}$/);
    expect(lines[1]).toMatch(/^plan \(planner\): dispatched, prompt \d+ tokens$/);
    expect(lines[2]).toMatch(/^plan: completed, outcome done in \d+\.\d s$/);
    expect(lines[3]).toMatch(/^implement \(implementer\): dispatched, prompt \d+ tokens$/);
    expect(lines.at(-1)).toBe("Run run-1 succeeded. Details: kxm run status run-1");
    const prompt = await read(root, ".kxm/runs/run-1/implement.1.prompt.md");
    expect(prompt).toContain("- Use pnpm, not npm, in this repository (`mem_use-pnpm`)");
    expect(prompt).toContain("## 4. Predecessor Outputs");
  });

  test("a second Ctrl-C exits at once with 130 and takes the agent's process group with it", async () => {
    const root = await project();
    const pidFile = join(root, "agent.pid");
    // An agent that ignores SIGTERM: the first Ctrl-C's SIGTERM leaves it running for the grace period.
    const stubborn = JSON.stringify(["sh", "-c", 'trap "" TERM; echo $$ > "$AGENT_PID_FILE"; exec sleep 60']);
    await put(root, ".kxm/agents.yaml", `default:\n  command: ${stubborn}\n`);
    await commitAll(root, "a stubborn agent");
    const child = spawn(process.execPath, [BIN, "run", "start", "fix-bug", "--prompt", "p"], {
      cwd: root,
      env: baseEnv({ AGENT_PID_FILE: pidFile }),
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const agentPid = await waitFor(async () => Number((await readFile(pidFile, "utf8")).trim()) || undefined);
    expect(processAlive(agentPid)).toBe(true);
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processAlive(agentPid)).toBe(true);
    const started = Date.now();
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(Date.now() - started).toBeLessThan(4_000);
    await waitFor(async () => (processAlive(agentPid) ? undefined : true));
  }, 30_000);

  test("exits 1 with one line on stderr when a step fails, and --json prints the status", async () => {
    const root = await project(["--exit", "4"]);
    const result = await kxm(["run", "start", "fix-bug", "--prompt", "p", "--run-id", "run-2"], {
      cwd: root,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "run start failed: run run-2 failed: step plan: the agent ended with exit code 4\n",
    );
    expect(result.stdout).toContain("  plan (planner): failed");
    const again = await kxm(["run", "start", "fix-bug", "--prompt", "p", "--run-id", "run-3", "--json"], {
      cwd: root,
    });
    expect(again.code).toBe(1);
    // The same failure as run-2's plan: blocked at its first attempt.
    expect(json(again)).toMatchObject({
      runId: "run-3",
      status: "failed",
      failingStep: "plan",
      reason: "step plan blocked: the same failure twice: the agent ended with exit code 4",
      blockedStep: "plan",
      breakerCause: null,
      steps: [
        { stepId: "plan", status: "blocked", attempt: 1 },
        { stepId: "implement", status: "pending" },
      ],
    });
    const status = await kxm(["run", "status", "run-3"], { cwd: root });
    expect(status.stdout.split("\n").slice(1, -1)).toEqual([
      expect.stringMatching(
        /^ {2}plan \(planner\): blocked in \d+\.\d s \(the same failure twice: the agent ended with exit code 4\); missing evidence: plan$/,
      ),
      "  implement (implementer): pending",
      "  reason: step plan blocked: the same failure twice: the agent ended with exit code 4",
      "  blocked: plan (the same failure twice)",
      "  hub: not_configured",
    ]);
  });

  test("retries a step by its attempts, journals each attempt, and shows the breaker", async () => {
    const root = await project(["--fail-until", "2", "--failure-on", "1=npm is not installed"]);
    await put(
      root,
      ".kxm/workflows/fix-bug.yaml",
      WORKFLOW.replace("permission: read-only", "permission: read-only\n    attempts: 3"),
    );
    await commitAll(root, "three attempts");
    const result = await kxm(
      ["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "run-retry", "--project", "demo"],
      { cwd: root, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN } },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(1, 5)).toEqual([
      expect.stringMatching(/^plan \(planner\): dispatched, prompt \d+ tokens$/),
      expect.stringMatching(/^plan: failed in \d+\.\d s \(the agent ended with exit code 1\)$/),
      expect.stringMatching(/^plan \(planner\): dispatched, attempt 2, prompt \d+ tokens$/),
      expect.stringMatching(/^plan attempt 2: completed, outcome done in \d+\.\d s$/),
    ]);
    const status = await kxm(["run", "status", "run-retry"], { cwd: root });
    expect(status.stdout).toMatch(
      /\n {2}plan \(planner\) attempt 2: completed, outcome done in \d+\.\d s; missing evidence: plan\n/,
    );
    const admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
    const packet = await admin.getContext({
      params: { project: "demo" },
      body: { role: "repro", task: "step plan attempt failed npm", runId: "run-retry" },
    });
    const journal = JSON.stringify(packet.packet);
    expect(journal).toMatch(/Step plan \(planner\) attempt 1 failed: npm is not installed in \d+\.\d s/);
    expect(journal).toMatch(/Step plan \(planner\) attempt 2 completed with outcome done in \d+\.\d s/);

    await put(
      root,
      ".kxm/agents.yaml",
      agents(["--exit", "1", "--failure-on", "1=alpha", "--failure-on", "2=beta"]),
    );
    await put(root, ".kxm/learning.yaml", "breaker:\n  consecutiveFailures: 2\n");
    await commitAll(root, "a failing planner and a short breaker");
    const broken = await kxm(["run", "start", "fix-bug", "--prompt", "p", "--run-id", "run-breaker"], {
      cwd: root,
    });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(
      "run start failed: run run-breaker failed: step plan: the agent ended with exit code 1; " +
        "the breaker stopped the run after 2 failed attempts in a row\n",
    );
    const shown = await kxm(["run", "status", "run-breaker"], { cwd: root });
    expect(shown.stdout).toContain("\n  breaker: consecutive_failures:2\n");
    expect(shown.stdout).toMatch(/\n {2}plan \(planner\) attempt 2: failed in /);
  });

  test("reports the run, each step and its episode to a configured hub", async () => {
    const root = await project();
    const result = await kxm(
      ["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "run-hub", "--project", "demo"],
      { cwd: root, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN } },
    );
    expect(result.code, result.stderr).toBe(0);
    const status = json<{ hub: string; steps: Array<{ hub: string }> }>(
      await kxm(["run", "status", "run-hub", "--json"], { cwd: root }),
    );
    expect(status.hub).toBe("reported");
    expect(status.steps.map((step) => step.hub)).toEqual(["reported", "reported"]);
    const admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
    const episodes = await admin.episodes({ params: { project: "demo" }, query: { runId: "run-hub" } });
    expect(episodes.items.map((item) => item.summary)).toEqual(["Run run-hub of fix-bug succeeded"]);
    const packet = await admin.getContext({
      params: { project: "demo" },
      body: { role: "planner", task: "step plan completed", runId: "run-hub" },
    });
    const journal = JSON.stringify(packet.packet);
    expect(journal).toContain("Step plan (planner) attempt 1 completed with outcome done");
    expect(journal).not.toContain("Fix it.");
  });

  test("goes on when the hub is down", async () => {
    const root = await project();
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const result = await kxm(["run", "start", "fix-bug", "--prompt", "p", "--run-id", "run-down"], {
      cwd: root,
      env: { KXM_HUB_URL: `http://127.0.0.1:${port}`, KXM_AUTH_TOKEN: ADMIN_TOKEN },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("hub: startRun not reported (hub_unreachable); the run goes on");
    expect(result.stdout).toContain("Run run-down succeeded.");
    expect(result.stdout).not.toContain(ADMIN_TOKEN);
  });

  test("refuses bad input with one line", async () => {
    const root = await project();
    expectFailureLine(
      await kxm(["run", "start", "nope", "--prompt", "p"], { cwd: root }),
      "run start",
      "no workflow nope: .kxm/workflows/nope.yaml does not exist",
    );
    await put(root, ".kxm/agents.yaml", "agents:\n  planner:\n    profile: cursor\n");
    expectFailureLine(
      await kxm(["run", "start", "fix-bug", "--prompt", "p"], { cwd: root }),
      "run start",
      /^\.kxm\/agents\.yaml:3: agents\.planner\.profile: /,
    );
    expectUsageError(
      await kxm(["run", "start", "fix-bug"], { cwd: root }),
      "run start",
      /Missing required flag prompt/,
    );
    expectUsageError(
      await kxm(["run", "start", "fix-bug", "--prompt", "p", "--hub", "ftp://x"], { cwd: root }),
      "run start",
      "--hub: ftp://x is not an http:// or https:// URL, such as http://127.0.0.1:7420",
    );
    expectJsonFailure(
      await kxm(["run", "start", "fix-bug", "--prompt", "p", "--json"], { cwd: root }),
      "invalid_request",
    );
  });
});

describe("kxm run prompt", () => {
  test("prints exactly the prompt kxm run start hands the agent", async () => {
    const root = await project();
    const preview = await kxm(["run", "prompt", "fix-bug", "--step", "plan", "--prompt", "Fix it."], {
      cwd: root,
    });
    expect(preview.code, preview.stderr).toBe(0);
    expect(
      preview.stdout.startsWith("Write a plan for the fix.\n\n# Context Packet [preview:plan:1]\n"),
    ).toBe(true);
    await kxm(["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "preview"], { cwd: root });
    expect(await read(root, ".kxm/runs/preview/plan.1.prompt.md")).toBe(preview.stdout);
  });

  test("previews the episodes digest the run then delivers", async () => {
    const root = await project();
    const episode = (at: string, runId: string, stepId: string, tried: string, failure: string) =>
      JSON.stringify({
        schema: "kxm.episode.v1",
        at,
        runId,
        workflow: "fix-bug",
        stepId,
        agent: "planner",
        attempt: 1,
        tried,
        progress: failure === "",
        verified: failure === "",
        failure,
        failureKey: failure.toLowerCase(),
        durationMs: 1200,
      });
    await put(
      root,
      ".kxm/runs/episodes.jsonl",
      `${episode("2026-08-30T09:15:00Z", "run-old", "plan", "Planned the fix from the issue", "")}\n` +
        `${episode("2026-08-30T09:20:00Z", "run-old", "implement", "Patched the loader", "tests failed")}\n`,
    );
    const preview = await kxm(
      ["run", "prompt", "fix-bug", "--step", "plan", "--prompt", "Fix it.", "--json"],
      {
        cwd: root,
      },
    );
    expect(preview.code, preview.stderr).toBe(0);
    const shown = json(preview) as { prompt: string; items: Array<{ id: string; section: string }> };
    expect(shown.prompt).toContain(
      "### Recent Episodes\n\n" +
        "- 2026-08-30T09:15:00Z plan#1: Planned the fix from the issue -> verified (`episode_run-old_plan_1`)\n" +
        "- 2026-08-30T09:20:00Z implement#1: Patched the loader -> FAILED: tests failed (`episode_run-old_implement_1`)\n",
    );
    expect(shown.items.filter((item) => item.section === "Recent Episodes").map((item) => item.id)).toEqual([
      "episode_run-old_plan_1",
      "episode_run-old_implement_1",
    ]);
    await kxm(["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "preview"], { cwd: root });
    expect(await read(root, ".kxm/runs/preview/plan.1.prompt.md")).toBe(shown.prompt);
    const manifest = JSON.parse(await read(root, ".kxm/runs/preview/plan.1.manifest.json"));
    expect(manifest.items).toEqual(
      shown.items.map(({ id, section }) => expect.objectContaining({ id, section })),
    );
  });

  test("previews another agent's view, a step inside a run, and --json", async () => {
    const root = await project();
    const critic = await kxm(
      ["run", "prompt", "fix-bug", "--step", "plan", "--agent", "critic-arch", "--json"],
      {
        cwd: root,
      },
    );
    expect(json(critic)).toMatchObject({ agent: "critic-arch", role: "critic", packetId: "preview:plan:1" });
    await kxm(["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "run-p"], { cwd: root });
    const inRun = await kxm(["run", "prompt", "fix-bug", "--step", "implement", "--run", "run-p"], {
      cwd: root,
    });
    expect(inRun.stdout).toContain("# Context Packet [run-p:implement:2]");
    expect(inRun.stdout).toContain("### plan\n\n- .kxm/runs/run-p/plan.1.output.txt\n- plan: docs/plan.md");
    expectUsageError(
      await kxm(["run", "prompt", "fix-bug", "--step", "plan", "--run", "run-p", "--prompt", "x"], {
        cwd: root,
      }),
      "run prompt",
      "--prompt and --project come from the run when --run is given",
    );
    expectFailureLine(
      await kxm(["run", "prompt", "fix-bug", "--step", "review"], { cwd: root }),
      "run prompt",
      "step: run preview has no step review",
    );
    expectUsageError(
      await kxm(["run", "prompt", "release", "--step", "plan", "--run", "run-p"], { cwd: root }),
      "run prompt",
      "run run-p is a run of fix-bug, not release",
    );
    expectUsageError(
      await kxm(["run", "prompt", "fix-bug", "--step", "plan", "--agent", "no/slash"], { cwd: root }),
      "run prompt",
      "--agent: must be letters, digits, '.', '_' or '-' (at most 64)",
    );
    expectFailureLine(
      await kxm(["run", "start", "fix-bug", "--prompt", "again", "--run-id", "run-p"], { cwd: root }),
      "run start",
      "run run-p already exists",
    );
  });
});

describe("kxm run status and manifest", () => {
  test("lists runs, shows one, and prints manifests", async () => {
    const root = await project();
    expect((await kxm(["run", "status"], { cwd: root })).stdout).toBe("No runs.\n");
    await kxm(["run", "start", "fix-bug", "--prompt", "Fix it.", "--run-id", "run-s"], { cwd: root });
    const list = await kxm(["run", "status"], { cwd: root });
    expect(list.stdout).toMatch(/^run-s {2}fix-bug {2}succeeded {2}\S+ {2}2\/2 steps\n$/);
    const one = await kxm(["run", "status", "run-s"], { cwd: root });
    expect(one.stdout).toContain("  implement (implementer): completed, outcome done in ");
    expect(one.stdout).toContain("; missing evidence: diff");

    const manifest = await kxm(["run", "manifest", "run-s", "--step", "implement", "--json"], { cwd: root });
    const parsed = json<{ packetId: string; items: Array<{ id: string; section: string }> }>(manifest);
    expect(parsed.packetId).toBe("run-s:implement:1");
    expect(parsed.items).toContainEqual(
      expect.objectContaining({ id: "mem_use-pnpm", section: "Project Knowledge" }),
    );
    const saved = JSON.parse(await readFile(join(root, ".kxm/runs/run-s/implement.1.manifest.json"), "utf8"));
    expect(parsed).toEqual(saved);
    const human = await kxm(["run", "manifest", "run-s"], { cwd: root });
    expect(human.stdout).toContain("  Project Knowledge: mem_use-pnpm  ");
    expectFailureLine(await kxm(["run", "status", "run-none"], { cwd: root }), "run status");
    expectFailureLine(
      await kxm(["run", "manifest", "run-s", "--step", "deploy"], { cwd: root }),
      "run manifest",
      "step: run run-s has no step deploy",
    );
    await put(root, ".kxm/agents.yaml", agents(["--outcome", "blocked"]));
    await commitAll(root, "a planner that blocks");
    await kxm(["run", "start", "fix-bug", "--prompt", "p", "--run-id", "run-b"], { cwd: root });
    expectFailureLine(
      await kxm(["run", "manifest", "run-b", "--step", "implement"], { cwd: root }),
      "run manifest",
      "step implement of run run-b has not been dispatched",
    );
  });
});
