import { open } from "node:fs/promises";
import { join } from "node:path";
import type { PredecessorOutput } from "../dispatch/prompt.js";
import { loadStepResult, readRunStatus, type StepResult } from "../runs/results.js";
import type { Run } from "../runs/runs.js";
import { OUTPUT_TAIL_BYTES } from "./adapter.js";
import { outputSnippet } from "./report.js";

/** What a finished step hands to later steps: its output file, its evidence, and the end of its output. */
export function predecessorOutput(result: StepResult, output: string): PredecessorOutput {
  const snippet = outputSnippet(output);
  return {
    stepId: result.stepId,
    artifacts: [result.files.output, ...result.evidence.map((line) => `${line.key}: ${line.ref}`)],
    ...(snippet === undefined ? {} : { snippet }),
  };
}

/**
 * The predecessor outputs `stepId` gets in `run`, rebuilt from the files of the steps before it that completed
 * (what `kxm run prompt --run` previews with).
 */
export async function predecessorsFromRun(
  root: string,
  run: Run,
  stepId: string,
): Promise<PredecessorOutput[]> {
  const status = await readRunStatus(root, run.runId);
  const out: PredecessorOutput[] = [];
  for (const step of status.steps) {
    if (step.stepId === stepId) break;
    if (step.status !== "completed" || step.attempt === null) continue;
    const result = await loadStepResult(root, run.runId, step.stepId, step.attempt);
    if (result === undefined) continue;
    const output = await readTail(join(root, ...result.files.output.split("/")), OUTPUT_TAIL_BYTES);
    out.push(predecessorOutput(result, output));
  }
  return out;
}

/** The last `bytes` bytes of a file as UTF-8; empty when it cannot be read. */
async function readTail(path: string, bytes: number): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    await handle?.close();
  }
}
