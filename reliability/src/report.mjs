// @ts-check
// The Markdown report: the run, a summary table of every figure, then what each scenario tried.
import { execFileSync } from "node:child_process";
import os from "node:os";
import { ROOT } from "./lib/paths.mjs";

/** @typedef {import("./scenarios.mjs").Figure} Figure */
/**
 * @typedef {object} Outcome
 * @property {string} name
 * @property {string} title
 * @property {number} ms
 * @property {import("./scenarios.mjs").ScenarioResult} [result]
 * @property {string} [error]
 */

/** The commit the run measured, with "+ changes" when the checkout is not clean. */
function commitLine() {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return "unknown commit";
  }
}

function machineLine() {
  const cpus = os.cpus();
  return `node ${process.version}, ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${os.availableParallelism()} cores, ${os.platform()} ${os.arch()}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM`;
}

/** Table cells hold no pipe or line break. @param {string} text */
const cell = (text) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The figures of an outcome; a scenario that threw is one figure that did not hold. @param {Outcome} outcome */
export function figuresOf(outcome) {
  if (outcome.result !== undefined) return outcome.result.figures;
  return [{ label: "completed", value: "no: it threw", goal: "yes", held: false }];
}

/**
 * The report's body (no title, so that docs/reliability.md can hold it under a heading of its own).
 * @param {readonly Outcome[]} outcomes
 * @param {{ mode: string, date: string }} run
 */
export function markdownReport(outcomes, run) {
  const lines = [
    `The ${run.mode} run of ${run.date}, commit ${commitLine()}; ${machineLine()}.`,
    "",
    "| scenario | figure | value | goal | held |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const outcome of outcomes) {
    for (const figure of figuresOf(outcome)) {
      lines.push(
        `| ${cell(outcome.title)} | ${cell(figure.label)} | ${cell(figure.value)} | ${cell(figure.goal)} | ${figure.held ? "yes" : "**no**"} |`,
      );
    }
  }
  for (const outcome of outcomes) {
    lines.push("", `### ${outcome.title}`, "");
    if (outcome.result !== undefined) {
      lines.push(`${outcome.result.tried} (${(outcome.ms / 1000).toFixed(1)} s)`);
      for (const note of outcome.result.notes ?? []) lines.push("", `- ${note}`);
    } else {
      lines.push("It threw before reporting its figures:", "", "```text", outcome.error ?? "", "```");
    }
  }
  return `${lines.join("\n")}\n`;
}
