import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promoteSkill, proposeSkill } from "@kxm/memory-git";
import { commitAll, factText, git, put, tempDir as sharedTempDir } from "@kxm/test-support";
import { createRun, type Run, type Workflow } from "../../src/index.js";

// The dispatch tests' fixtures. The writers other packages' tests use too live in @kxm/test-support.
export { commitAll, put } from "@kxm/test-support";

export const NOW = new Date("2026-09-01T12:00:00.000Z");

/** A fresh temporary folder, removed after the test. */
export function tempDir(prefix = "kxm-dispatch-"): Promise<string> {
  return sharedTempDir(prefix);
}

/** A real git repository in a temporary folder, with one initial commit. */
export async function gitRepo(): Promise<string> {
  const root = await tempDir();
  git(root, "init", "-q", "-b", "main");
  await put(root, "README.md", "# demo\n");
  commitAll(root, "initial");
  return root;
}

/** Writes `.kxm/memory/<id>.md`. */
export function putFact(root: string, id: string, overrides: Record<string, string | undefined> = {}) {
  return put(root, `.kxm/memory/${id}.md`, factText({ id, ...overrides }));
}

/** Proposes and promotes a skill named `name`; returns its id. */
export async function promotedSkill(root: string, name: string, description: string): Promise<string> {
  // An Agent Skill's folder is named after it.
  const source = join(await tempDir("kxm-skill-src-"), name);
  await put(
    source,
    "SKILL.md",
    `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`,
  );
  const proposed = await proposeSkill(root, source, { proposedBy: "alice", now: NOW });
  await promoteSkill(root, proposed.id, { promotedBy: "bob", evidenceRefs: ["pr:1"], now: NOW });
  return proposed.id;
}

/** A two-step workflow; the second step's agent is `agent`. */
export function workflow(agent = "implementer"): Workflow {
  return {
    name: "fix-bug",
    steps: [
      {
        id: "plan",
        agent: "planner",
        instructions: "Write a plan for the fix.",
        requiredEvidence: ["plan"],
        allowedOutcomes: ["done", "blocked"],
        permission: "read-only",
      },
      {
        id: "implement",
        agent,
        instructions: "Implement the fix and run the tests with pnpm.",
        requiredEvidence: ["diff", "test-log"],
        allowedOutcomes: ["done", "blocked", "needs-review"],
        permission: "workspace-write",
      },
    ],
  };
}

/** Creates run `run_test` for `workflow()` with a fixed project name and clock. */
export function startRun(root: string, agent?: string, prompt = "Fix the flaky release test."): Promise<Run> {
  return createRun(root, { workflow: workflow(agent), prompt, now: NOW, runId: "run_test", project: "demo" });
}

/** An executable `git` stand-in that sleeps 30 seconds. */
export async function hangingGit(): Promise<string> {
  const dir = await tempDir("kxm-hang-");
  const path = join(dir, "git");
  await writeFile(path, "#!/bin/sh\nsleep 30\n");
  await chmod(path, 0o755);
  return path;
}
