// @ts-check
// `pnpm --filter @kxm/bench run docs`: copies the latest report (results/latest.md) into the marked results
// section of docs/benchmarks.md, headings moved two levels down, so the published figures are always a whole run.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const START = "<!-- bench-results:start -->";
const END = "<!-- bench-results:end -->";
const here = dirname(fileURLToPath(import.meta.url));
const docsFile = join(here, "..", "..", "docs", "benchmarks.md");
const report = readFileSync(join(here, "..", "results", "latest.md"), "utf8").trim();
const docs = readFileSync(docsFile, "utf8");
const start = docs.indexOf(START);
const end = docs.indexOf(END);
if (start === -1 || end < start) {
  console.error(`bench docs: ${docsFile} has no ${START} ... ${END} block`);
  process.exit(1);
}
const body = report.replace(/^(#+) /gm, "$1## ");
writeFileSync(docsFile, `${docs.slice(0, start + START.length)}\n\n${body}\n\n${docs.slice(end)}`);
console.log(`bench docs: docs/benchmarks.md now shows the run in bench/results/latest.md`);
