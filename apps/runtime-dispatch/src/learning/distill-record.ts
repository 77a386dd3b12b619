import { join } from "node:path";
import { writeFileWhole } from "@kxm/memory-git";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { readJsonFile } from "../definitions/yaml-file.js";
import { jsonText } from "../runs/runs.js";

// What a run's distillation pass did: `.kxm/runs/<run-id>/distill/distill.json`, written whole by the pass and read
// by the retrospective, so the retrospective can say what happened without running anything.

export const DISTILL_SCHEMA = "kxm.distill.v1";

const DistillRecordSchema = z.strictObject({
  schema: z.literal(DISTILL_SCHEMA),
  runId: z.string(),
  agent: z.string(),
  /** skipped (and why), done (candidates proposed or none), failed (the agent), refused (writes outside). */
  status: z.enum(["skipped", "done", "failed", "refused"]),
  /** Why it was skipped, failed or refused; null when done. */
  reason: z.string().nullable(),
  /** Candidates proposed through the skill store, in name order. */
  proposed: z.array(z.strictObject({ id: z.string(), name: z.string() })),
  /** Candidates written but not proposed, with why, in name order. */
  dropped: z.array(z.strictObject({ name: z.string(), reason: z.string() })),
  /** Project-relative paths the agent changed outside its allowlist, sorted. */
  outside: z.array(z.string()),
  /** The pass's files (prompt, transcript, errors), project-relative; null when the agent was not invoked. */
  files: z.strictObject({ prompt: z.string(), log: z.string(), errors: z.string() }).nullable(),
});
export type DistillRecord = z.infer<typeof DistillRecordSchema>;

/** `.kxm/runs/<run-id>/distill`, project-relative. */
export function distillDirRel(runId: string): string {
  return `${KXM_PATHS.runs}/${runId}/distill`;
}

export function writeDistillRecord(root: string, record: DistillRecord): Promise<void> {
  return writeFileWhole(join(root, distillDirRel(record.runId), "distill.json"), jsonText(record));
}

/** The run's distillation record, or undefined when the pass left none. */
export function readDistillRecord(root: string, runId: string): Promise<DistillRecord | undefined> {
  return readJsonFile(root, `${distillDirRel(runId)}/distill.json`, DistillRecordSchema);
}
