// @ts-check
// Runs one scenario in a process of its own (so that one scenario's memory, handles or signals never touch the
// next) and sends its result to the parent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadScenarios } from "./scenarios.mjs";

process.once("message", async (/** @type {{ name: string, short: boolean, seed: number }} */ job) => {
  const scenario = (await loadScenarios()).find((candidate) => candidate.name === job.name);
  const scratch = mkdtempSync(join(tmpdir(), `kxm-reliability-${job.name}-`));
  const started = performance.now();
  try {
    if (scenario === undefined) throw new Error(`no scenario named ${job.name}`);
    const result = await scenario.run({
      short: job.short,
      seed: job.seed,
      scratch,
      progress: (message) => process.stderr.write(`  ${job.name}: ${message}\n`),
    });
    process.send?.({ ok: true, result, ms: performance.now() - started });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.send?.({ ok: false, error: message, ms: performance.now() - started });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  process.disconnect?.();
  // A scenario may leave a timer or socket behind; its figures are sent, so the process ends here.
  setTimeout(() => process.exit(0), 100).unref();
});
