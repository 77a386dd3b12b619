import { KxmError } from "@kxm/contract";
import { KXM_PATHS } from "@kxm/memory-git/layout";
import { z } from "zod";
import { parseYamlFile, readProjectFile } from "./yaml-file.js";

/** Workflow names, step ids and agent ids: lowercase words joined by `-`, `_` or `.`; safe in file names. */
const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const AGENT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const nameField = z
  .string()
  .max(64)
  .regex(NAME_PATTERN, "must be lowercase letters, digits, '.', '_' or '-'");
const text = z.string().trim().min(1, "must be a non-empty string");

export const WorkflowStepSchema = z.strictObject({
  id: nameField,
  agent: z.string().max(64).regex(AGENT_PATTERN, "must be letters, digits, '.', '_' or '-'"),
  instructions: text.max(20_000),
  requiredEvidence: z.array(text.max(128)).max(32),
  allowedOutcomes: z.array(text.max(64)).min(1, "must list at least one outcome").max(16),
  permission: text.max(64),
  /** How many attempts the step gets: a failed or timed-out attempt is retried until they are used (default 1). */
  attempts: z.number().int().min(1).max(10).optional(),
});
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

const WorkflowSchema = z
  .strictObject({
    name: nameField.optional(),
    steps: z.array(WorkflowStepSchema).min(1, "must hold at least one step").max(64),
  })
  .superRefine((workflow, ctx) => {
    const seen = new Set<string>();
    workflow.steps.forEach((step, index) => {
      if (seen.has(step.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["steps", index, "id"],
          message: `"${step.id}" is used by another step`,
        });
      }
      seen.add(step.id);
      const keys = new Set<string>();
      step.requiredEvidence.forEach((key, keyIndex) => {
        if (keys.has(key)) {
          ctx.addIssue({
            code: "custom",
            path: ["steps", index, "requiredEvidence", keyIndex],
            message: `"${key}" is listed twice`,
          });
        }
        keys.add(key);
      });
    });
  });

/** A step's attempts: its `attempts` field, 1 when it has none. */
export function stepAttempts(step: WorkflowStep): number {
  return step.attempts ?? 1;
}

/** A validated workflow; `name` is always the file's name. */
export interface Workflow {
  name: string;
  steps: WorkflowStep[];
}

/** `.kxm/workflows/<name>.yaml` under `root`, relative (forward slashes) as error messages name it. */
function workflowFile(name: string): string {
  return `${KXM_PATHS.workflows}/${name}.yaml`;
}

/**
 * Parses and validates a workflow's YAML text. Problems are `invalid_request` naming the file, the line and the
 * rule: `<file>:<line>: <path>: <rule>`. The first problem in document order is reported.
 */
function parseWorkflow(name: string, source: string): Workflow {
  const file = workflowFile(name);
  const { value: workflow, lineOf } = parseYamlFile(file, source, WorkflowSchema);
  if (workflow.name !== undefined && workflow.name !== name) {
    const line = lineOf(["name"]);
    throw new KxmError("invalid_request", `${file}:${line}: name: must be "${name}", the file's name`);
  }
  return { name, steps: workflow.steps };
}

/**
 * Loads `.kxm/workflows/<name>.yaml`: `not_found` when it does not exist, `invalid_request` for a bad name or a
 * malformed file (naming the file, the line and the rule).
 */
export async function loadWorkflow(root: string, name: string): Promise<Workflow> {
  if (typeof name !== "string" || name.length > 64 || !NAME_PATTERN.test(name)) {
    throw new KxmError("invalid_request", "workflow: must be lowercase letters, digits, '.', '_' or '-'");
  }
  const file = workflowFile(name);
  const source = await readProjectFile(root, file);
  if (source === undefined) throw new KxmError("not_found", `no workflow ${name}: ${file} does not exist`);
  return parseWorkflow(name, source);
}
