import { join } from "node:path";
import { noteCandidate, writeFileWhole } from "@kxm/memory-git";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { runDir } from "../runs/runs.js";
import type { LearnContext, Learner } from "./context.js";
import { type DistillRecord, readDistillRecord } from "./distill-record.js";
import { episodeText } from "./episodes.js";
import { type AttemptRecord, type RunRecord, readRunRecord } from "./run-record.js";

// The retrospective: `.kxm/runs/<run-id>/retrospective.md`, written whole after every run from the run's files
// (run.json, each attempt's result, the episodes, outcome.json, distill.json): the same files give the same bytes.
// When an attempt failed it may note a memory candidate summarizing the run, which nothing loads until a person
// accepts it (`kxm memory accept`).

/** The memory candidate the retrospective noted, and whether it waits for review or was rejected before. */
interface NotedCandidate {
  id: string;
  rejected: boolean;
}

/** The longest summary a run's memory candidate gets. */
const SUMMARY_CHARS = 2_000;

/** `.kxm/runs/<run-id>/retrospective.md`. */
function retrospectivePath(root: string, runId: string): string {
  return join(runDir(root, runId), "retrospective.md");
}

function countDetail(attempts: readonly AttemptRecord[]): string {
  const verified = attempts.filter((attempt) => attempt.verified).length;
  const failed = attempts.filter((attempt) => attempt.failed).length;
  const unverified = attempts.filter((attempt) => attempt.progress && !attempt.verified).length;
  const cancelled = attempts.length - verified - failed - unverified;
  const parts = [`${verified} verified`];
  if (unverified > 0) parts.push(`${unverified} unverified`);
  parts.push(`${failed} failed`);
  if (cancelled > 0) parts.push(`${cancelled} cancelled`);
  return parts.join(", ");
}

function attemptLine(attempt: AttemptRecord): string {
  const { result } = attempt;
  const status: string = result.status;
  let how: string;
  if (attempt.verified) how = `verified, outcome ${result.outcome}`;
  else if (attempt.progress) {
    const why = [
      ...(result.reason === null ? [] : [result.reason]),
      ...(result.missingEvidence.length === 0
        ? []
        : [`missing evidence: ${result.missingEvidence.join(", ")}`]),
    ];
    how = `completed, outcome ${result.outcome}, unverified: ${why.join("; ")}`;
  } else if (status === "timed_out") how = `timed out: ${attempt.failure}`;
  else if (status === "cancelled") how = "cancelled";
  else how = `${status}: ${attempt.failure}`;
  const tried = attempt.tried === "" ? "" : ` (tried: ${attempt.tried})`;
  return `- Attempt ${result.attempt}: ${how}${tried}`;
}

function stepsSection(record: RunRecord): string[] {
  const lines = ["## Steps", ""];
  for (const step of record.run.workflow.steps) {
    lines.push(`### ${step.id}`, "");
    const attempts = record.attempts.filter((attempt) => attempt.result.stepId === step.id);
    if (attempts.length === 0) lines.push("- Not run.");
    for (const attempt of attempts) lines.push(attemptLine(attempt));
    lines.push("");
  }
  return lines;
}

function distillSection(distill: DistillRecord | undefined): string[] {
  const lines = ["## Distillation", ""];
  if (distill === undefined) return [...lines, "No distillation record.", ""];
  const by = `agent \`${distill.agent}\``;
  if (distill.status === "skipped") lines.push(`Skipped: ${distill.reason}.`);
  else if (distill.status === "done") {
    lines.push(
      `Done by ${by}: ${distill.proposed.length} skill candidate(s) proposed, ${distill.dropped.length} dropped.`,
    );
  } else lines.push(`${distill.status === "failed" ? "Failed" : "Refused"} (${by}): ${distill.reason}.`);
  if (distill.proposed.length + distill.dropped.length + distill.outside.length > 0 || distill.files)
    lines.push("");
  for (const skill of distill.proposed) lines.push(`- Proposed \`${skill.id}\``);
  for (const skill of distill.dropped) lines.push(`- Dropped \`${skill.name}\`: ${skill.reason}`);
  for (const path of distill.outside) lines.push(`- Written outside the allowlist: \`${path}\``);
  if (distill.files) lines.push(`- Transcript: \`${distill.files.log}\``);
  lines.push("");
  return lines;
}

/** What needs a person's attention, one item each, in a fixed order. */
function ownerItems(
  record: RunRecord,
  distill: DistillRecord | undefined,
  noted: NotedCandidate | undefined,
): string[] {
  const items: string[] = [];
  const { run, outcome } = record;
  if (outcome === undefined) items.push("The run has no outcome: it was interrupted.");
  else if (outcome.status === "cancelled") items.push("The run was cancelled.");
  if (outcome?.breakerCause) items.push(`The breaker stopped the run (\`${outcome.breakerCause}\`).`);
  for (const step of run.workflow.steps) {
    const attempts = record.attempts.filter((attempt) => attempt.result.stepId === step.id);
    const last = attempts.at(-1);
    if (last === undefined) continue;
    const status: string = last.result.status;
    const n = attempts.length;
    const tries = `${n} attempt${n === 1 ? "" : "s"}`;
    const transcript = `\`${last.result.files.output}\``;
    if (status === "blocked")
      items.push(`Step \`${step.id}\` is blocked after ${tries}: ${last.failure} (${transcript}).`);
    else if (last.failed)
      items.push(`Step \`${step.id}\` failed after ${tries}: ${last.failure} (${transcript}).`);
    else if (last.progress && last.result.reason !== null) {
      items.push(`Step \`${step.id}\` ended with outcome ${last.result.outcome}: the run stopped there.`);
    }
    if (last.result.missingEvidence.length > 0) {
      items.push(
        `Step \`${step.id}\` is missing required evidence: ${last.result.missingEvidence.join(", ")}.`,
      );
    }
  }
  const notRun = run.workflow.steps.filter(
    (step) => !record.attempts.some((a) => a.result.stepId === step.id),
  );
  if (outcome !== undefined && outcome.status !== "succeeded" && notRun.length > 0) {
    items.push(`Not run: ${notRun.map((step) => `\`${step.id}\``).join(", ")}.`);
  }
  if (outcome?.reason?.startsWith("the run stopped:")) items.push(`${outcome.reason}.`);
  if (distill?.status === "failed") {
    items.push(`Distillation failed: ${distill.reason}; see \`${distill.files?.log ?? "distill.log"}\`.`);
  }
  if (distill?.status === "refused") {
    items.push(
      "Distillation wrote outside its allowlist, so no skill candidate was kept; review and undo: " +
        `${distill.outside.map((path) => `\`${path}\``).join(", ")}.`,
    );
  }
  for (const skill of distill?.dropped ?? []) {
    items.push(`Distillation dropped \`${skill.name}\`: ${skill.reason}.`);
  }
  for (const skill of distill?.proposed ?? []) {
    items.push(
      `Skill candidate \`${skill.id}\` waits for review: \`kxm skills promote ${skill.id} --evidence <ref>\` ` +
        `or \`kxm skills reject ${skill.id} --reason <why>\`.`,
    );
  }
  if (noted !== undefined && !noted.rejected) {
    items.push(
      `Memory candidate \`${noted.id}\` summarizes this run and waits for review: ` +
        `\`kxm memory accept ${noted.id} --id <fact-id> --authority evidence\` or ` +
        `\`kxm memory reject ${noted.id} --reason <why>\`.`,
    );
  }
  return items;
}

/**
 * The retrospective's Markdown: the run's status and attempts with their verified and failure counts, each step's
 * attempts, the distillation pass, and "For the owner": what needs attention. Pure: a function of the files read.
 */
function renderRetrospective(
  record: RunRecord,
  distill: DistillRecord | undefined,
  noted: NotedCandidate | undefined,
): string {
  const { run, outcome } = record;
  const lines = [
    `# Retrospective: ${run.runId}`,
    "",
    `- Workflow: ${run.workflow.name}`,
    `- Status: ${outcome?.status ?? "interrupted"}`,
  ];
  if (outcome?.reason) lines.push(`- Reason: ${outcome.reason}`);
  lines.push(`- Created: ${run.createdAt}`);
  if (outcome) lines.push(`- Finished: ${outcome.finishedAt}`);
  lines.push(`- Attempts: ${record.attempts.length} (${countDetail(record.attempts)})`);
  if (outcome?.blockedStep) lines.push(`- Blocked step: ${outcome.blockedStep}`);
  if (outcome?.breakerCause) lines.push(`- Breaker: ${outcome.breakerCause}`);
  lines.push("", ...stepsSection(record), ...distillSection(distill), "## For the owner", "");
  const items = ownerItems(record, distill, noted);
  if (items.length === 0) lines.push("Nothing needs attention.");
  for (const item of items) lines.push(`- ${item}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The summary of a run in which an attempt failed, for a memory candidate; undefined when none failed. One line:
 * the run, its status and counts, then each failed attempt's failure.
 */
function runSummary(record: RunRecord): string | undefined {
  const failed = record.attempts.filter((attempt) => attempt.failed);
  if (failed.length === 0) return undefined;
  const status = record.outcome?.status ?? "interrupted";
  const failures = failed.map((a) => `${a.result.stepId}#${a.result.attempt}: ${a.failure}`).join("; ");
  const text = episodeText(
    `Run ${record.run.runId} of workflow ${record.run.workflow.name} ${status} after ` +
      `${record.attempts.length} attempts (${countDetail(record.attempts)}). Failures: ${failures}`,
  );
  return text.length <= SUMMARY_CHARS ? text : text.slice(0, SUMMARY_CHARS);
}

/** Reads the run's files, notes the memory candidate when due, and writes the retrospective whole. */
export async function writeRetrospective(context: LearnContext): Promise<string> {
  const { root, run, settings } = context;
  const record = await readRunRecord(root, run.runId);
  const distill = await readDistillRecord(root, run.runId);
  let noted: NotedCandidate | undefined;
  const summary = settings.retrospective.proposeMemory ? runSummary(record) : undefined;
  if (summary !== undefined) {
    const candidate = await noteCandidate(root, {
      summary,
      kind: "run-summary",
      scope: "project",
      source: `run:${run.runId}`,
    });
    noted = {
      id: candidate.id,
      rejected: candidate.file.startsWith(`${KXM_PATHS.rejectedMemoryCandidates}/`),
    };
  }
  const text = renderRetrospective(record, distill, noted);
  await writeFileWhole(retrospectivePath(root, run.runId), text);
  return text;
}

/** The retrospective learner: runs after distillation, whose record it reports. */
export const retrospectiveLearner: Learner = {
  name: "retrospective",
  async learn(context) {
    await writeRetrospective(context);
  },
};
