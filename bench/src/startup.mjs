// @ts-check
// Start-up: `kxm --version` (the built CLI, as `pnpm bench` leaves it) against `node -e 0` (Node alone), each a
// fresh process, timed as a whole, one after another.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { now, summarize } from "./measure.mjs";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "apps", "cli", "bin", "run.js");
const CLI_BUILT = join(dirname(CLI), "..", "dist");

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10) / 10;

/** @param {readonly string[]} args @param {number} runs */
function timeProcess(args, runs) {
  spawnSync(process.execPath, args, { stdio: "ignore" });
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const start = now();
    const result = spawnSync(process.execPath, args, { stdio: "ignore" });
    samples.push(now() - start);
    if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status}`);
  }
  const s = summarize(samples);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95) };
}

/** @param {string} mode @returns {{ node: object, kxm: object } | { skipped: string }} */
export function benchStartup(mode) {
  if (!existsSync(CLI_BUILT)) return { skipped: "the CLI is not built (pnpm bench builds it)" };
  const runs = mode === "smoke" ? 3 : mode === "quick" ? 10 : 20;
  return { node: timeProcess(["-e", "0"], runs), kxm: timeProcess([CLI, "--version"], runs) };
}
