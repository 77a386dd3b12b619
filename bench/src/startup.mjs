// @ts-check
// Start-up: the built CLI (as `pnpm bench` leaves it) against `node -e 0` (Node alone), each a fresh process, timed
// as a whole, one after another: `kxm --version`, and the two commands the SessionStart hook and a run's start
// pay for, `kxm memory brief` and `kxm memory revision`, in a Git repository holding one committed memory fact.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { now, summarize } from "./measure.mjs";

/** The CLI as the workspace builds it: its bin script, and the build output the script loads. */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "apps", "cli", "bin", "run.js");
export const CLI_BUILT = join(dirname(CLI), "..", "dist");

const FACT = `---
schema: kxm.memory.v1
id: test-runner
scope: project
kind: convention
summary: Run the test suite with npm test before every commit
provenance:
  sourceType: git
  sourceRef: docs/testing.md
authority: instruction
confidence: verified
lifecycle: active
---
`;

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10) / 10;

/** @param {readonly string[]} args @param {number} runs @param {string} cwd */
function timeProcess(args, runs, cwd) {
  spawnSync(process.execPath, args, { stdio: "ignore", cwd });
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const start = now();
    const result = spawnSync(process.execPath, args, { stdio: "ignore", cwd });
    samples.push(now() - start);
    if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status}`);
  }
  const s = summarize(samples);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95) };
}

/** A Git repository with one committed memory fact, as the SessionStart hook finds a project. */
function project() {
  const root = mkdtempSync(join(tmpdir(), "kxm-bench-startup-"));
  mkdirSync(join(root, ".kxm", "memory"), { recursive: true });
  writeFileSync(join(root, ".kxm", "memory", "test-runner.md"), FACT);
  const git = (/** @type {string[]} */ ...args) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.email=bench@example.com", "-c", "user.name=bench", "commit", "-q", "-m", "memory");
  return root;
}

/**
 * @param {string} mode
 * @returns {{ node: object, kxm: object, brief: object, revision: object } | { skipped: string }}
 */
export function benchStartup(mode) {
  if (!existsSync(CLI_BUILT)) return { skipped: "the CLI is not built (pnpm bench builds it)" };
  const runs = mode === "smoke" ? 3 : mode === "quick" ? 10 : 20;
  const root = project();
  try {
    return {
      node: timeProcess(["-e", "0"], runs, root),
      kxm: timeProcess([CLI, "--version"], runs, root),
      brief: timeProcess([CLI, "memory", "brief"], runs, root),
      revision: timeProcess([CLI, "memory", "revision"], runs, root),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
