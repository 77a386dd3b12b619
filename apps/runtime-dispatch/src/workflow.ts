import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { KxmError } from "@kxm/contract";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { type ZodIssue, z } from "zod";

/** Workflow names, step ids and agent ids: lowercase words joined by `-`, `_` or `.`; safe in file names. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
const AGENT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

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
});
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

export const WorkflowSchema = z
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

/** A validated workflow; `name` is always the file's name. */
export interface Workflow {
  name: string;
  steps: WorkflowStep[];
}

/** `.kxm/workflows/<name>.yaml` under `root`, relative (forward slashes) as error messages name it. */
export function workflowFile(name: string): string {
  return `.kxm/workflows/${name}.yaml`;
}

type PathKey = PropertyKey;

function pairFor(node: Node, key: PathKey) {
  if (!isMap(node)) return undefined;
  return node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(key));
}

/** The 1-based line of the deepest YAML node on `path` (the key's line for an unknown key). */
function lineOf(
  contents: Node | null,
  lineCounter: LineCounter,
  path: readonly PathKey[],
  unknownKey?: string,
): number {
  let node: Node | null = contents;
  let offset = node?.range?.[0] ?? 0;
  for (const key of path) {
    if (node === null) break;
    let next: Node | null = null;
    if (isSeq(node) && typeof key === "number") next = (node.items[key] as Node | undefined) ?? null;
    else {
      const pair = pairFor(node, key);
      if (pair) next = (pair.value as Node | null) ?? (pair.key as Node);
    }
    if (next === null) break;
    node = next;
    offset = node.range?.[0] ?? offset;
  }
  if (unknownKey !== undefined && node !== null) {
    const pair = pairFor(node, unknownKey);
    const keyNode = pair?.key as Node | undefined;
    if (keyNode?.range) offset = keyNode.range[0];
  }
  return lineCounter.linePos(offset).line;
}

function describePath(path: readonly PathKey[]): string {
  let out = "";
  for (const key of path)
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  return out === "" ? "(document)" : out;
}

function ruleOf(issue: ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown key "${issue.keys[0]}" (allowed keys are fixed)`;
  if (issue.code === "invalid_type") return `must be ${issue.expected}`;
  return issue.message;
}

/**
 * Parses and validates a workflow's YAML text. Problems are `invalid_request` naming the file, the line and the
 * rule: `<file>:<line>: <path>: <rule>`. The first problem in document order is reported.
 */
export function parseWorkflow(name: string, source: string): Workflow {
  const file = workflowFile(name);
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = lineCounter.linePos(yamlError.pos[0]).line;
    const message = yamlError.message.split("\n")[0] ?? yamlError.code;
    throw new KxmError("invalid_request", `${file}:${line}: is not valid YAML: ${message}`);
  }
  const parsed = WorkflowSchema.safeParse(doc.toJS({ maxAliasCount: 0 }));
  if (!parsed.success) {
    const located = parsed.error.issues.map((issue) => {
      const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      return { issue, line: lineOf(doc.contents, lineCounter, issue.path, unknownKey) };
    });
    located.sort((a, b) => a.line - b.line);
    const first = located[0]!;
    const path = describePath(first.issue.path);
    throw new KxmError("invalid_request", `${file}:${first.line}: ${path}: ${ruleOf(first.issue)}`);
  }
  const workflow = parsed.data;
  if (workflow.name !== undefined && workflow.name !== name) {
    const line = lineOf(doc.contents, lineCounter, ["name"]);
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
  let source: string;
  try {
    source = await readFile(join(root, ".kxm", "workflows", `${name}.yaml`), "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new KxmError("not_found", `no workflow ${name}: ${workflowFile(name)} does not exist`);
    }
    throw new KxmError(
      "invalid_request",
      `${workflowFile(name)}: cannot be read (${String(code ?? "error")})`,
    );
  }
  return parseWorkflow(name, source);
}
