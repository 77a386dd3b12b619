import { fileURLToPath } from "node:url";
import { loadAgentsConfig } from "../../src/definitions/agents.js";
import { openRunLog } from "../../src/execution/events.js";
import { executeRun } from "../../src/index.js";
import type { LearnContext } from "../../src/learning/after-run.js";
import { readEpisodes } from "../../src/learning/episodes.js";
import { parseLearningSettings } from "../../src/learning/settings.js";
import { commitAll, gitRepo, NOW, put, tempDir, workflow } from "./repo.js";

// Real runs for the learners' tests: a real git repository, agents played by real processes (the fake agent for
// the steps, test/fixtures/distill-agent.mjs for distillation), and a LearnContext built from what executeRun
// left. The project's own .kxm/learning.yaml turns the runner's own learning pass off, so that the learners the
// tests call are the ones whose effects they check.

const FAKE_AGENT = fileURLToPath(new URL("../fixtures/fake-agent.mjs", import.meta.url));
const DISTILL_AGENT = fileURLToPath(new URL("../fixtures/distill-agent.mjs", import.meta.url));

function agentsYaml(agents: Record<string, [string, string[]]>): string {
  const lines = ["agents:"];
  for (const [agent, [script, args]] of Object.entries(agents)) {
    lines.push(`  ${agent}:`, `    command: ${JSON.stringify([process.execPath, script, ...args])}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * ` (tried: <text>)` as the retrospective shows it for an attempt whose episode records what it tried, else "":
 * the runner writes episodes once the run loop records them, and these tests hold either way.
 */
export async function triedSuffix(root: string, stepId: string, attempt = 1): Promise<string> {
  const { episodes } = await readEpisodes(root);
  const tried = episodes.find(
    (e) => e.runId === "run_test" && e.stepId === stepId && e.attempt === attempt,
  )?.tried;
  return tried === undefined || tried === "" ? "" : ` (tried: ${tried})`;
}

/** The distillation prompt's `<tried> ` before the arrow, likewise. */
export async function triedPrefix(root: string, stepId: string, attempt = 1): Promise<string> {
  const suffix = await triedSuffix(root, stepId, attempt);
  return suffix === "" ? "" : `${suffix.slice(" (tried: ".length, -1)} `;
}

export interface LearningRun {
  root: string;
  out: string;
  context: LearnContext;
}

/**
 * A project whose planner and implementer run with `planner` and `implementer` arguments, whose `distiller` runs the
 * distill agent with `distiller` arguments (omit it for no such agent), after one real run of `workflow()`.
 */
export async function learningRun(options: {
  planner?: string[];
  implementer?: string[];
  distiller?: string[];
  settings?: string;
}): Promise<LearningRun> {
  const root = await gitRepo();
  const agents: Record<string, [string, string[]]> = {
    planner: [FAKE_AGENT, options.planner ?? ["--evidence", "plan=docs/plan.md"]],
    implementer: [
      FAKE_AGENT,
      options.implementer ?? ["--evidence", "diff=pr:1", "--evidence", "test-log=ci:1"],
    ],
  };
  if (options.distiller !== undefined) agents.distiller = [DISTILL_AGENT, options.distiller];
  await put(root, ".kxm/agents.yaml", agentsYaml(agents));
  await put(root, ".gitignore", ".kxm/runs/\n");
  await put(root, ".kxm/learning.yaml", "distill: {enabled: false}\nretrospective: {proposeMemory: false}\n");
  commitAll(root, "agents");
  const out = await tempDir("kxm-learning-out-");
  const env = { ...process.env, FAKE_AGENT_OUT: out, KXM_AUTH_TOKEN: "admin-token-never-for-agents" };
  const executed = await executeRun({
    root,
    workflow: workflow(),
    prompt: "Fix the flaky release test.",
    runId: "run_test",
    project: "demo",
    now: () => NOW,
    env,
  });
  const context: LearnContext = {
    root,
    run: executed.run,
    outcome: executed.outcome,
    attempts: executed.steps,
    settings: parseLearningSettings(options.settings ?? "distill: {agent: distiller}\n"),
    agents: await loadAgentsConfig(root),
    log: openRunLog(root, executed.run.runId),
    now: () => NOW,
    env,
  };
  return { root, out, context };
}
