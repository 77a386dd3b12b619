import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { KxmError } from "@kxm/contract";
import { parseDocument } from "yaml";
import { z } from "zod";
import { MODE_NAME, MODES_FILE, MODES_SCHEMA, type ModeDefinition } from "./modes.js";

// `.kxm/modes.yaml`: a project's own modes, validated with zod. Loaded only by `kxm explain`.

const ProjectPathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine(
    (path) =>
      !path.startsWith("/") &&
      !path.includes("\\") &&
      !/^[A-Za-z]:/.test(path) &&
      !path.split("/").includes(".."),
    "must be a path inside the project, written with '/' and without '..'",
  );

const ModeSchema = z.strictObject({
  description: z.string().trim().min(1).max(200),
  files: z.array(ProjectPathSchema).max(32).default([]),
  memoryBrief: z.boolean().default(false),
  skills: z.boolean().default(false),
});

const ModesFileSchema = z.strictObject({
  schema: z.literal(MODES_SCHEMA),
  modes: z.record(
    z.string().regex(MODE_NAME, "a mode name is lower-case letters, digits and '-', 1 to 64 characters"),
    ModeSchema,
  ),
});

function where(path: readonly PropertyKey[]): string {
  return path
    .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
    .join("")
    .slice(1);
}

/**
 * The project's modes from `.kxm/modes.yaml` under `root`, or none when the file does not exist. A file that is
 * not YAML or breaks a rule is `invalid_request`, naming the file, the field and the rule, never a value.
 */
export async function loadProjectModes(root: string): Promise<Record<string, ModeDefinition>> {
  let text: string;
  try {
    text = await readFile(join(root, ...MODES_FILE.split("/")), "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return {};
    throw new KxmError("invalid_request", `${MODES_FILE}: cannot be read (${String(code ?? "error")})`);
  }
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const problem = document.errors[0];
  if (problem !== undefined) {
    throw new KxmError("invalid_request", `${MODES_FILE}: is not valid YAML (${problem.code})`);
  }
  let raw: unknown;
  try {
    raw = document.toJS({ maxAliasCount: 0 });
  } catch {
    throw new KxmError("invalid_request", `${MODES_FILE}: YAML aliases are not allowed`);
  }
  const parsed = ModesFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined ? "" : where(issue.path);
    const rule =
      issue?.code === "unrecognized_keys"
        ? "has an unknown key"
        : issue?.code === "invalid_value" && issue.path[0] === "schema"
          ? `must be ${MODES_SCHEMA}`
          : (issue?.message ?? "is invalid");
    throw new KxmError("invalid_request", `${MODES_FILE}: ${field === "" ? "" : `${field}: `}${rule}`);
  }
  return parsed.data.modes;
}
