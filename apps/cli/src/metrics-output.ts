import type { Efficacy, EfficacySide, Ledger } from "@kxm/runtime-dispatch";

// `kxm run metrics` as text: the runs, every attempt, then skill and memory efficacy. Columns are padded to their
// widest cell; every list keeps the ledger's own order (attempts by finish time, efficacy by id).

function table(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

function seconds(ms: number | null): string {
  return ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`;
}

/** `3/4 0.75 [0.3006, 0.9544]`, or `0/0` when no attempt is on that side. */
function sideText(side: EfficacySide): string {
  if (side.n === 0 || side.rate === null || side.interval === null) return "0/0";
  return `${side.verified}/${side.n} ${side.rate.toFixed(2)} [${side.interval.low.toFixed(2)}, ${side.interval.high.toFixed(2)}]`;
}

function efficacyLines(title: string, rows: readonly Efficacy[]): string[] {
  if (rows.length === 0) return [`${title}: none carried yet.`];
  return [
    `${title} (verified/attempts, rate, 95% Wilson interval; without = the same steps' attempts that did not carry it):`,
    ...table([
      ["id", "with", "without"],
      ...rows.map((row) => [row.id, sideText(row.with), sideText(row.without)]),
    ]).map((line) => `  ${line}`),
  ];
}

export function metricsLines(ledger: Ledger): string[] {
  if (ledger.runs.length === 0)
    return ["No runs in the ledger yet: it is rolled up after each `kxm run start`."];
  const verified = ledger.attempts.filter((row) => row.verified).length;
  const lines = [
    `${ledger.runs.length} run${ledger.runs.length === 1 ? "" : "s"}, ${ledger.attempts.length} attempt${ledger.attempts.length === 1 ? "" : "s"}, ${verified} verified`,
    "",
    "Runs:",
    ...table([
      ["run", "workflow", "status", "attempts", "verified", "failed", "stopped by"],
      ...ledger.runs.map((run) => [
        run.runId,
        run.workflow,
        run.status ?? "unfinished",
        String(run.attempts),
        String(run.verified),
        String(run.failed),
        run.blockedStep !== null
          ? `blocked: ${run.blockedStep}`
          : run.breakerCause !== ""
            ? `breaker: ${run.breakerCause}`
            : "-",
      ]),
    ]).map((line) => `  ${line}`),
    "",
    "Attempts:",
    ...table([
      ["run", "step", "attempt", "agent", "result", "duration", "failure"],
      ...ledger.attempts.map((row) => [
        row.runId,
        row.stepId,
        String(row.attempt),
        row.agent,
        row.verified ? "verified" : row.blocked ? "blocked" : row.progress ? "unverified" : "failed",
        seconds(row.durationMs),
        row.failure === "" ? "-" : row.failure,
      ]),
    ]).map((line) => `  ${line}`),
    "",
    ...efficacyLines("Skill efficacy", ledger.skills),
    "",
    ...efficacyLines("Memory efficacy", ledger.memory),
    "",
    "Efficacy is diagnostic: KXM never promotes or removes a skill or a fact because of it.",
  ];
  return lines;
}
