// @ts-check
// `pnpm reliability [--short] [--only a,b] [--out DIR] [--docs]`: every scenario in src/scenarios/, one after
// another, each in a process of its own. Prints what each tried and what held, writes results/latest.md and
// results/latest.json, and with --docs puts the report into docs/reliability.md. Exit 0 when every figure held,
// 1 when one did not, 2 for a bad argument.
import { fork } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./lib/paths.mjs";
import { figuresOf, markdownReport } from "./report.mjs";
import { loadScenarios } from "./scenarios.mjs";

const USAGE = "usage: pnpm reliability [--short] [--only NAME,NAME] [--seed N] [--out DIR] [--docs]";
const here = dirname(fileURLToPath(import.meta.url));
const DOCS = join(ROOT, "docs", "reliability.md");
const START = "<!-- reliability:results:start -->";
const END = "<!-- reliability:results:end -->";

/** @param {string} message */
function usageError(message) {
  console.error(`reliability: ${message}; ${USAGE}`);
  process.exit(2);
}

const scenarios = await loadScenarios();
const names = scenarios.map((scenario) => scenario.name);

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  let short = false;
  let only = names;
  let seed = 20261202;
  let out = join(here, "..", "results");
  let docs = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = /** @type {string} */ (argv[i]);
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === "") usageError(`${flag} needs a value`);
      return /** @type {string} */ (next);
    };
    if (arg === "--") continue;
    else if (flag === "--short") short = true;
    else if (flag === "--docs") docs = true;
    else if (flag === "--only") {
      only = value()
        .split(",")
        .map((name) => name.trim());
      const unknown = only.filter((name) => !names.includes(name));
      if (unknown.length > 0)
        usageError(`unknown scenario ${unknown.join(", ")} (scenarios: ${names.join(", ")})`);
    } else if (flag === "--seed") {
      const text = value();
      if (!/^[0-9]{1,9}$/.test(text)) usageError("--seed takes a whole number below 1,000,000,000");
      seed = Number(text);
    } else if (flag === "--out") out = resolve(value());
    else if (flag === "--help" || flag === "-h") {
      console.log(`${USAGE}\nscenarios: ${names.join(", ")}`);
      process.exit(0);
    } else usageError(`unknown argument ${arg}`);
  }
  if (docs && (short || only !== names)) usageError("--docs takes the full run of every scenario");
  return { short, only, seed, out, docs };
}

const options = parseArgs(process.argv.slice(2));
const started = performance.now();
/** @param {string} message */
const progress = (message) =>
  process.stderr.write(`${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${message}\n`);

/**
 * @param {string} name
 * @returns {Promise<import("./report.mjs").Outcome>}
 */
function runScenario(name) {
  const scenario = /** @type {import("./scenarios.mjs").Scenario} */ (scenarios.find((s) => s.name === name));
  return new Promise((resolvePromise) => {
    const child = fork(join(here, "worker.mjs"), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    /** @type {any} */
    let message;
    child.on("message", (received) => {
      message = received;
    });
    child.on("exit", (code, signal) => {
      const base = { name, title: scenario.title };
      if (message?.ok) resolvePromise({ ...base, ms: message.ms, result: message.result });
      else
        resolvePromise({
          ...base,
          ms: message?.ms ?? 0,
          error: message?.error ?? `the scenario's process exited with ${code ?? signal} before reporting`,
        });
    });
    child.send({ name, short: options.short, seed: options.seed });
  });
}

const mode = options.short ? "short" : "full";
const outcomes = [];
for (const scenario of scenarios) {
  if (!options.only.includes(scenario.name)) continue;
  progress(`${scenario.name}`);
  const outcome = await runScenario(scenario.name);
  const failed = figuresOf(outcome).filter((figure) => !figure.held);
  progress(`${scenario.name}: ${failed.length === 0 ? "held" : `${failed.length} figure(s) did not hold`}`);
  outcomes.push(outcome);
}

const date = new Date().toISOString().slice(0, 10);
const body = markdownReport(outcomes, { mode, date });
const report = `# KXM reliability (${mode})\n\n${body}`;
console.log(report);
mkdirSync(options.out, { recursive: true });
writeFileSync(join(options.out, "latest.md"), report);
writeFileSync(
  join(options.out, "latest.json"),
  `${JSON.stringify({ mode, date, seed: options.seed, outcomes }, null, 2)}\n`,
);
if (options.docs) {
  const docs = readFileSync(DOCS, "utf8");
  const from = docs.indexOf(START);
  const to = docs.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOCS} has no ${START} ... ${END} section`);
  writeFileSync(DOCS, `${docs.slice(0, from + START.length)}\n\n${body}\n${docs.slice(to)}`);
  progress(`wrote the figures into ${DOCS}`);
}
const held = outcomes.every((outcome) => figuresOf(outcome).every((figure) => figure.held));
process.exitCode = held ? 0 : 1;
