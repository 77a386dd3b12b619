import type { DispatchManifest, RunProgress, RunStatus } from "@kxm/runtime-dispatch";

// Human output of `kxm run` commands: one line per event or step, nothing of prompts or agent output.

function seconds(ms: number | null): string {
  return ms === null ? "" : ` in ${(ms / 1000).toFixed(1)} s`;
}

/** ` attempt <n>` after a step id, for a step's second attempt and later. */
function attemptMark(attempt: number | null): string {
  return attempt === null || attempt === 1 ? "" : ` attempt ${attempt}`;
}

/** The line `kxm run start` prints for a progress event, if any. */
export function describeProgress(progress: RunProgress): string | undefined {
  switch (progress.kind) {
    case "run_started": {
      const { run } = progress;
      const steps = run.workflow.steps.length;
      return `Run ${run.runId} of ${run.workflow.name}: ${steps} step${steps === 1 ? "" : "s"}, memory ${run.memoryRevision ?? "not pinned"}`;
    }
    case "step_started": {
      const gaps = progress.gaps.length === 0 ? "" : `; gaps: ${progress.gaps.join(", ")}`;
      const attempt = progress.attempt === 1 ? "" : `, attempt ${progress.attempt}`;
      return `${progress.step.id} (${progress.step.agent}): dispatched${attempt}, prompt ${progress.promptTokens} tokens${gaps}`;
    }
    case "step_finished": {
      const { result } = progress;
      const what = result.outcome === null ? result.status : `${result.status}, outcome ${result.outcome}`;
      const why = result.reason === null ? "" : ` (${result.reason})`;
      return `${result.stepId}${attemptMark(result.attempt)}: ${what}${seconds(result.durationMs)}${why}`;
    }
    case "hub_report_failed":
      return `hub: ${progress.call} not reported (${progress.code}); the run goes on`;
    case "run_finished":
      return undefined;
  }
}

/** `kxm run status <run-id>`: a header line, then one line per step. */
export function statusLines(status: RunStatus): string[] {
  const lines = [
    `${status.runId}  ${status.workflow}  ${status.status}  created ${status.createdAt}` +
      (status.finishedAt === null ? "" : `  finished ${status.finishedAt}`),
  ];
  for (const step of status.steps) {
    let line = `  ${step.stepId} (${step.agent})${attemptMark(step.attempt)}: ${step.status}`;
    if (step.outcome !== null) line += `, outcome ${step.outcome}`;
    line += seconds(step.durationMs);
    if (step.reason !== null) line += ` (${step.reason})`;
    if (step.missingEvidence.length > 0) line += `; missing evidence: ${step.missingEvidence.join(", ")}`;
    lines.push(line);
  }
  if (status.reason !== null) lines.push(`  reason: ${status.reason}`);
  if (status.blockedStep !== null) lines.push(`  blocked: ${status.blockedStep} (the same failure twice)`);
  if (status.breakerCause !== null) lines.push(`  breaker: ${status.breakerCause}`);
  if (status.hub !== null) lines.push(`  hub: ${status.hub}`);
  return lines;
}

/** `kxm run manifest`: a header per manifest, then one line per item and gap. */
export function manifestLines(manifest: DispatchManifest): string[] {
  const lines = [
    `${manifest.stepId}.${manifest.attempt}  packet ${manifest.packetId}  agent ${manifest.agent} (role ${manifest.role})  ` +
      `prompt ${manifest.promptTokens} tokens  memory ${manifest.memoryRevision ?? "not pinned"}`,
  ];
  if (manifest.items.length === 0) lines.push("  no items");
  for (const item of manifest.items) {
    lines.push(`  ${item.section}: ${item.id}  ${item.characters} chars  score ${item.score}`);
  }
  for (const gap of manifest.gaps) lines.push(`  gap: ${gap}`);
  return lines;
}
