// @ts-check
// The scenarios are the modules in src/scenarios/, each with a default export of this shape. A new figure is a new
// file there: nothing else to register.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compareCodeUnits } from "@kxm/contract";

/**
 * @typedef {object} Figure
 * @property {string} label what was counted or measured, such as "5xx answers"
 * @property {string} value what the run found, formatted for the report
 * @property {string} goal what it must be, such as "0" or "at least 99%"
 * @property {boolean} held whether the value meets the goal
 */

/**
 * @typedef {object} ScenarioContext
 * @property {boolean} short the short form CI runs (`--short`): fewer requests, cycles and seconds
 * @property {number} seed the seed every generated input derives from
 * @property {string} scratch a temporary folder of this scenario's own, removed after it
 * @property {(message: string) => void} progress a line on standard error
 */

/**
 * @typedef {object} ScenarioResult
 * @property {string} tried one or two sentences: what the scenario did, with its counts
 * @property {Figure[]} figures
 * @property {string[]} [notes] anything a reader of the figures should know
 */

/**
 * @typedef {object} Scenario
 * @property {string} name the name `--only` takes, such as "hostile-requests"
 * @property {string} title the report's heading
 * @property {number} order where it comes in the report (ascending)
 * @property {(context: ScenarioContext) => Promise<ScenarioResult>} run
 */

const folder = join(dirname(fileURLToPath(import.meta.url)), "scenarios");

/** Every scenario, in report order. @returns {Promise<Scenario[]>} */
export async function loadScenarios() {
  const files = readdirSync(folder)
    .filter((file) => file.endsWith(".mjs"))
    .sort();
  /** @type {Scenario[]} */
  const scenarios = [];
  for (const file of files) {
    const module = await import(pathToFileURL(join(folder, file)).href);
    scenarios.push(/** @type {Scenario} */ (module.default));
  }
  return scenarios.sort((a, b) => a.order - b.order || compareCodeUnits(a.name, b.name));
}
