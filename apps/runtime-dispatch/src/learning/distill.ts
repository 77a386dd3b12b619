import { cp, lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { isKxmError, KxmError } from "@kxm/contract";
import { proposeSkill, writeFileWhole } from "@kxm/memory-git";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { adapterFor } from "../definitions/agents.js";
import { type AgentExit, runAgent } from "../execution/adapter.js";
import { WITHHELD_ENV } from "../execution/agent-env.js";
import type { LearnContext, Learner } from "./context.js";
import { distillPrompt, MAX_DISTILLED } from "./distill-prompt.js";
import { DISTILL_SCHEMA, type DistillRecord, distillDirRel, writeDistillRecord } from "./distill-record.js";
import { readRunRecord } from "./run-record.js";
import { changedPaths, snapshotWorktree } from "./worktree.js";

// Distillation: after a run, the agent of `distill.agent` is invoked once with a fixed prompt built from the run's
// outcomes and transcripts, and may write skill candidates only as `.kxm/skills/candidates/distilled/<name>/SKILL.md`.
// The runner compares the work tree before and after it (worktree.ts); a change anywhere else keeps no candidate.
// Valid candidates (Agent Skills front matter, at most three, in name order) are proposed through the skill store
// with proposer `distill:<agent>`, so whoever promotes one must be someone else; the scratch folder is then removed
// (a copy stays in the run's distill/ folder). Every outcome is recorded in distill.json; a failure is thrown as
// `distill_failed`, which the learning hook logs: it never changes the run's status.

const ALLOWED = new RegExp(
  `^${KXM_PATHS.distilledSkills.replaceAll(".", "\\.")}/([a-z0-9]+(?:-[a-z0-9]+)*)/SKILL\\.md$`,
);

/** The proposer every distilled candidate is recorded with. */
function distillProposer(agent: string): string {
  return `distill:${agent}`;
}

function exitProblem(exit: AgentExit): string | undefined {
  if (exit.status === "not_started") return exit.reason ?? "the agent could not start";
  if (exit.status === "timed_out") return "the agent timed out";
  if (exit.status === "cancelled") return "the distillation was cancelled";
  if (exit.reason !== undefined) return exit.reason;
  if (exit.exitCode !== 0) {
    return `the agent ended with ${exit.exitCode === null ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`}`;
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  return lstat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

function skipped(context: LearnContext, reason: string): DistillRecord {
  return {
    schema: DISTILL_SCHEMA,
    runId: context.run.runId,
    agent: context.settings.distill.agent,
    status: "skipped",
    reason,
    proposed: [],
    dropped: [],
    outside: [],
    files: null,
  };
}

/** Proposes the allowlisted candidates in name order, keeping at most {@link MAX_DISTILLED}. */
async function proposeCandidates(context: LearnContext, names: readonly string[], record: DistillRecord) {
  const scratch = join(context.root, KXM_PATHS.distilledSkills);
  for (const name of names) {
    const dir = join(scratch, name);
    if (!(await isFile(join(dir, "SKILL.md")))) continue;
    if (record.proposed.length >= MAX_DISTILLED) {
      record.dropped.push({
        name,
        reason: `over the limit of ${MAX_DISTILLED} candidates a run (kept the first by name)`,
      });
      continue;
    }
    try {
      const skill = await proposeSkill(context.root, dir, {
        proposedBy: distillProposer(context.settings.distill.agent),
        now: context.now(),
      });
      record.proposed.push({ id: skill.id, name: skill.name });
    } catch (error) {
      if (!isKxmError(error)) throw error;
      record.dropped.push({ name, reason: `${error.code}: ${error.message}` });
    }
  }
}

/** Runs the distillation pass for the context's run and records it; returns the record. */
export async function distillRun(context: LearnContext): Promise<DistillRecord> {
  const { root, run, settings, outcome } = context;
  const agent = settings.distill.agent;
  const adapter = adapterFor(context.agents, agent);
  const dirRel = distillDirRel(run.runId);
  const eventsRel = `${KXM_PATHS.runs}/${run.runId}/events.jsonl`;
  // The runner writes these while the agent runs: they are not the agent's changes.
  const skip = (path: string) => path === `${dirRel}/` || path.startsWith(`${dirRel}/`) || path === eventsRel;
  let record: DistillRecord;
  if (!settings.distill.enabled)
    record = skipped(context, `distillation is off (distill.enabled in ${KXM_PATHS.learning})`);
  else if (outcome.status === "cancelled") record = skipped(context, "the run was cancelled");
  else if (context.attempts.length === 0) record = skipped(context, "no attempt ran");
  else if (adapter === undefined)
    record = skipped(context, `no adapter for agent ${agent} in ${KXM_PATHS.agents}`);
  else if ((await snapshotWorktree(root, skip)) === undefined) {
    record = skipped(
      context,
      "the project is not in a git repository, so what the agent writes cannot be checked",
    );
  } else {
    const scratch = join(root, KXM_PATHS.distilledSkills);
    const files = {
      prompt: `${dirRel}/prompt.md`,
      log: `${dirRel}/distill.log`,
      errors: `${dirRel}/errors.txt`,
    };
    const abs = (rel: string) => join(root, ...rel.split("/"));
    record = { ...skipped(context, ""), status: "done", reason: null, files };
    // The scratch folder is the runner's: whatever an interrupted pass left there is not this agent's.
    await rm(scratch, { recursive: true, force: true });
    const before = await snapshotWorktree(root, skip);
    if (before === undefined) throw new KxmError("git_unavailable", "git status failed before distillation");
    const prompt = await distillPrompt(root, await readRunRecord(root, run.runId));
    await writeFileWhole(abs(files.prompt), prompt);
    try {
      const env: NodeJS.ProcessEnv = { ...context.env };
      for (const name of WITHHELD_ENV) delete env[name];
      Object.assign(env, {
        KXM_RUN_ID: run.runId,
        KXM_DISTILL_DIR: KXM_PATHS.distilledSkills,
        KXM_PROMPT_FILE: abs(files.prompt),
      });
      const exit = await runAgent({
        adapter,
        prompt,
        promptFile: abs(files.prompt),
        cwd: root,
        env,
        outputFile: abs(files.log),
        errorFile: abs(files.errors),
        ...(context.signal === undefined ? {} : { signal: context.signal }),
      });
      const after = await snapshotWorktree(root, skip);
      const changed =
        after === undefined
          ? ["(the work tree could not be read after the agent)"]
          : await changedPaths(root, before, after, skip);
      record.outside = changed.filter((path) => !ALLOWED.test(path));
      const problem = exitProblem(exit);
      if (problem !== undefined) {
        record.status = "failed";
        record.reason = problem;
      } else if (record.outside.length > 0) {
        record.status = "refused";
        record.reason = `the agent changed ${record.outside.length} path(s) outside ${KXM_PATHS.distilledSkills}/<name>/SKILL.md`;
      } else {
        const names = [...new Set(changed.map((path) => ALLOWED.exec(path)?.[1] ?? ""))]
          .filter((n) => n !== "")
          .sort();
        await proposeCandidates(context, names, record);
      }
    } finally {
      // A copy of what the agent wrote stays with the run, as evidence; the scratch folder goes.
      const left = await readdir(scratch).catch(() => [] as string[]);
      if (left.length > 0)
        await cp(scratch, abs(`${dirRel}/scratch`), { recursive: true }).catch(() => undefined);
      await rm(scratch, { recursive: true, force: true });
    }
  }
  await writeDistillRecord(root, record);
  context.log.event("distill_finished", {
    runId: run.runId,
    agent,
    status: record.status,
    proposed: record.proposed.map((skill) => skill.id),
    dropped: record.dropped.map((skill) => skill.name),
    outside: record.outside.length,
  });
  if (record.status === "failed" || record.status === "refused") {
    throw new KxmError("distill_failed", `distillation ${record.status}: ${record.reason}`);
  }
  return record;
}

/** The distillation learner: runs before the retrospective, which reports its record. */
export const distillLearner: Learner = {
  name: "distill",
  async learn(context) {
    await distillRun(context);
  },
};
