import { stepFile, stepFileRel } from "../runs/results.js";

// The files of one step attempt under `.kxm/runs/<run-id>/`: `<step>.<attempt>.<suffix>`.

export interface StepFiles {
  /** Absolute paths the step writes. */
  prompt: string;
  output: string;
  errors: string;
  result: string;
  /** The paths a step result records, relative to the project root with `/`. */
  recorded: { prompt: string; manifest: string; output: string; errors: string };
}

export function stepFiles(root: string, runId: string, stepId: string, attempt: number): StepFiles {
  return {
    prompt: stepFile(root, runId, stepId, attempt, "prompt.md"),
    output: stepFile(root, runId, stepId, attempt, "output.txt"),
    errors: stepFile(root, runId, stepId, attempt, "errors.txt"),
    result: stepFile(root, runId, stepId, attempt, "result.json"),
    recorded: {
      prompt: stepFileRel(runId, stepId, attempt, "prompt.md"),
      manifest: stepFileRel(runId, stepId, attempt, "manifest.json"),
      output: stepFileRel(runId, stepId, attempt, "output.txt"),
      errors: stepFileRel(runId, stepId, attempt, "errors.txt"),
    },
  };
}
