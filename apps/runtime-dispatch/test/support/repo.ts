import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promoteSkill, proposeSkill } from "@kxm/memory-git";
import { afterEach } from "vitest";
import { createRun, type Run, type Workflow } from "../../src/index.js";

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export const NOW = new Date("2026-09-01T12:00:00.000Z");

/** A fresh temporary folder, removed after the test. */
export async function tempDir(prefix = "kxm-dispatch-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Runs git in `root` with a fixed identity and no user configuration. */
function git(root: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=KXM Test", "-c", "user.email=test@kxm.invalid", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

/** A real git repository in a temporary folder, with one initial commit. */
export async function gitRepo(): Promise<string> {
  const root = await tempDir();
  git(root, "init", "-q", "-b", "main");
  await put(root, "README.md", "# demo\n");
  commitAll(root, "initial");
  return root;
}

/** Stages everything and commits. */
export function commitAll(root: string, message: string): void {
  git(root, "add", "-A");
  git(root, "commit", "-q", "--allow-empty", "-m", message);
}

/** Writes `text` at `rel` under `root`, creating folders. */
export async function put(root: string, rel: string, text: string): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** A memory fact file's text; override any top-level front-matter key (`undefined` drops it). */
function factText(overrides: Record<string, string | undefined> = {}): string {
  const fields: Record<string, string | undefined> = {
    schema: "kxm.memory.v1",
    id: "use-pnpm",
    scope: "project",
    kind: "convention",
    summary: "Use pnpm, not npm, in this repository",
    provenance: "\n  sourceType: git\n  sourceRef: docs/tooling.md",
    authority: "instruction",
    confidence: "verified",
    lifecycle: "active",
    ...overrides,
  };
  const lines = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}:${value.startsWith("\n") ? "" : " "}${value}`);
  return `---\n${lines.join("\n")}\n---\n`;
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
