// Workflow runs and their episodes (docs/reference/behaviour.md section 9 point 2), shared by every storage engine.
import { type ContextItem, KxmError, LIMITS, type RunRecord } from "@kxm/contract";
import { parseContextItem, redactSecrets } from "@kxm/provenance";
import { randomId } from "../ids.js";
import { recordId, redactedText } from "../input.js";
import { isoTime } from "../time.js";
import type { FinishRunInput, StartRunInput } from "../types.js";

/** A run id leaves room for the `episode_` prefix within the 128-character item id limit. */
const MAX_RUN_ID_CHARS = LIMITS.idChars - "episode_".length;
const MAX_WORKFLOW_CHARS = 128;
const MAX_STEP_CHARS = 128;
const MAX_LESSONS = 64;
const OUTCOMES: ReadonlySet<string> = new Set(["succeeded", "failed", "cancelled"]);

/** The record of a run that starts now; the id is the caller's or `run_<24 hex>`. */
export function newRun(input: StartRunInput, now: Date): RunRecord {
  const id =
    input.runId === undefined
      ? randomId("run_")
      : recordId(input.runId, "runId", "invalid_request", MAX_RUN_ID_CHARS);
  return {
    id,
    project: input.project,
    workflow: redactedText(input.workflow, "workflow", MAX_WORKFLOW_CHARS),
    status: "running",
    startedAt: isoTime(now, "now"),
  };
}

/** The terminal record of `run`; refuses an outcome that is not terminal. Step and lessons are redacted. */
export function finishedRun(run: RunRecord, input: FinishRunInput, now: Date): RunRecord {
  if (!OUTCOMES.has(input.outcome)) {
    throw new KxmError("invalid_request", "outcome: must be succeeded, failed or cancelled");
  }
  const out: RunRecord = { ...run, status: input.outcome, finishedAt: isoTime(now, "now") };
  if (input.failingStep !== undefined) {
    out.failingStep = redactedText(input.failingStep, "failingStep", MAX_STEP_CHARS);
  }
  if (input.lessons !== undefined) {
    if (!Array.isArray(input.lessons) || input.lessons.length > MAX_LESSONS) {
      throw new KxmError("invalid_request", `lessons: must be a list of at most ${MAX_LESSONS} texts`);
    }
    const lessons = input.lessons.map((lesson, i) =>
      redactedText(lesson, `lessons.${i}`, LIMITS.summaryChars),
    );
    if (lessons.length > 0) out.lessons = lessons;
  }
  return out;
}

/**
 * Redacts, then cuts to the summary limit with a trailing ellipsis. A cut can expose a new match (a secret's
 * boundary moves), so this repeats until the redacted text fits.
 */
function fitSummary(text: string): string {
  let out = redactSecrets(text);
  while (out.length > LIMITS.summaryChars) {
    let cut = LIMITS.summaryChars - 1;
    const code = out.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // never split a surrogate pair
    out = redactSecrets(`${out.slice(0, cut)}…`);
  }
  return out;
}

/**
 * The one episode item of a finished run: id `episode_<runId>`, origin workflow, authority evidence, confidence
 * probable, source ref `run:<runId>`, `observedAt` = the finish time, summary `Run <id> of <workflow> <outcome>`
 * then `; failing step <step>` and `; lessons: <a>; <b>` when present.
 */
export function episodeFor(run: RunRecord): ContextItem {
  let summary = `Run ${run.id} of ${run.workflow} ${run.status}`;
  if (run.failingStep !== undefined) summary += `; failing step ${run.failingStep}`;
  if (run.lessons !== undefined && run.lessons.length > 0) summary += `; lessons: ${run.lessons.join("; ")}`;
  return parseContextItem({
    id: `episode_${run.id}`,
    kind: "episode",
    project: run.project,
    summary: fitSummary(summary),
    provenance: { sourceType: "workflow", sourceRef: `run:${run.id}` },
    authority: "evidence",
    confidence: "probable",
    observedAt: run.finishedAt,
  });
}
