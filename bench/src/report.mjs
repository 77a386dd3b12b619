// @ts-check
// The Markdown report: the machine, the targets, per pool size a table of absolute figures and one of ratios
// (peer / KXM), KXM's own details, and Cranfield. The sections are built by the modules under report/; this one
// puts them in order.
import { browserReport } from "./report/browser-report.mjs";
import { cranfieldReport } from "./report/cranfield-report.mjs";
import { enginesReport } from "./report/engines-report.mjs";
import { count, table } from "./report/format.mjs";
import { growthTable } from "./report/growth.mjs";
import { hubReport } from "./report/hub-report.mjs";
import { detailsTable, phasesTable } from "./report/kxm-tables.mjs";
import { labelOf } from "./report/labels.mjs";
import { machineLine } from "./report/machine.mjs";
import { absoluteTable, ratioTable } from "./report/pool-tables.mjs";
import { startupReport } from "./report/startup-report.mjs";
import { targets } from "./report/targets.mjs";

export { cranfieldSummary } from "./report/cranfield-summary.mjs";
export { machineInfo } from "./report/machine.mjs";

/** @typedef {import("./run.mjs").SizeResult} SizeResult */

/**
 * The whole report, as printed and as written to results/latest.md.
 * @param {{ mode: string, seed: number, machine: ReturnType<typeof import("./report/machine.mjs").machineInfo>, sizes: readonly { size: number, kxm: any, peers: any[] }[], hub?: any, engines?: any, startup?: any, browser?: any, cranfield: ReturnType<typeof import("./report/cranfield-summary.mjs").cranfieldSummary> | null, identical: boolean, checks: number, seconds: number }} run
 */
export function markdownReport(run) {
  const lines = [
    `# KXM benchmark (${run.mode})`,
    "",
    `${machineLine(run.machine)}; seed ${run.seed}; ran ${run.seconds.toFixed(1)} s`,
    "",
    "## Targets",
    "",
    table(
      ["target", "measured", "holds"],
      targets(run.sizes, run.cranfield, run.hub ?? null).map((t) => [
        t.target,
        t.measured,
        t.holds === null ? "n/a" : t.holds ? "yes" : "**no**",
      ]),
      ["l", "l", "l"],
    ),
    "",
  ];
  for (const entry of run.sizes) {
    lines.push(`## ${count(entry.size)} items`, "", absoluteTable(entry), "");
    if (entry.peers.length > 0) lines.push(ratioTable(entry), "");
  }
  const growth = growthTable(run.sizes, labelOf);
  if (growth !== "") lines.push("## Growth with the pool", "", growth, "");
  lines.push(
    "## KXM details",
    "",
    `identical: ${run.identical ? "yes" : "no"} (${run.checks} indexed results compared with the plain functions, byte for byte)`,
    "",
    detailsTable(run.sizes.map((entry) => entry.kxm)),
    "",
    "Where a packet's time goes (each phase's median over the requests, timed in a separate pass; score is the " +
      "scoring of the kinds the walk reaches and the count of the others' matches; sort is splitting a kind's " +
      "matched items into buckets and ordering them in chunks; fill is the first-fit walk, with the packet and " +
      "audit):",
    "",
    phasesTable(run.sizes.map((entry) => entry.kxm)),
    "",
  );
  if (run.hub) lines.push("## Hub on loopback", "", hubReport(run.hub), "");
  if (run.engines)
    lines.push("## SQLite and PostgreSQL, one hub and several", "", enginesReport(run.engines), "");
  if (run.startup) lines.push("## Start-up", "", startupReport(run.startup), "");
  if (run.browser) lines.push("## Browser sessions", "", browserReport(run.browser), "");
  if (run.cranfield !== null) lines.push("## Cranfield", "", cranfieldReport(run.cranfield), "");
  return lines.join("\n");
}
