import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { KxmError, parseOrThrow } from "@kxm/contract";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { ZodIssue, ZodType } from "zod";

// YAML configuration files (workflows, agents) validated with zod, with errors that name the file, the line and
// the rule: `<file>:<line>: <path>: <rule>`.

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
  if (issue.code === "invalid_type") {
    if (!issue.message.startsWith("Invalid input")) return issue.message;
    return `must be ${issue.expected === "int" ? "a whole number" : issue.expected}`;
  }
  return issue.message;
}

export interface ParsedYaml<T> {
  value: T;
  /** The 1-based line of the node at `path` (for checks made after the schema). */
  lineOf(path: readonly PathKey[]): number;
}

/**
 * Parses `source` (the text of `file`, a project-relative path used in messages) and validates it with `schema`.
 * Problems are `invalid_request`, `<file>:<line>: <path>: <rule>`; the first problem in document order is reported.
 * Aliases are refused and duplicate keys are errors.
 */
export function parseYamlFile<T>(file: string, source: string, schema: ZodType<T>): ParsedYaml<T> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = lineCounter.linePos(yamlError.pos[0]).line;
    const message = yamlError.message.split("\n")[0] ?? yamlError.code;
    throw new KxmError("invalid_request", `${file}:${line}: is not valid YAML: ${message}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw new KxmError("invalid_request", `${file}: YAML aliases are not allowed`);
  }
  const parsed = schema.safeParse(raw);
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
  return { value: parsed.data, lineOf: (path) => lineOf(doc.contents, lineCounter, path) };
}

/**
 * Reads `rel` (forward slashes) under `root` as UTF-8: `undefined` when it does not exist, `invalid_request` when it
 * exists but cannot be read.
 */
export async function readProjectFile(root: string, rel: string): Promise<string | undefined> {
  try {
    return await readFile(join(root, ...rel.split("/")), "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new KxmError("invalid_request", `${rel}: cannot be read (${String(code ?? "error")})`);
  }
}

/**
 * Reads `rel` under `root` as JSON validated by `schema`: `undefined` when it does not exist, `invalid_request`
 * naming the file when it cannot be read, is not JSON, or does not match.
 */
export async function readJsonFile<T>(root: string, rel: string, schema: ZodType<T>): Promise<T | undefined> {
  const text = await readProjectFile(root, rel);
  if (text === undefined) return undefined;
  // An empty file is what a write cut short at creation leaves: say so, it tells the operator what happened.
  if (text.trim() === "") throw new KxmError("invalid_request", `${rel}: is empty, not JSON`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new KxmError("invalid_request", `${rel}: is not valid JSON`);
  }
  return parseOrThrow(schema, raw, "invalid_request", rel);
}
