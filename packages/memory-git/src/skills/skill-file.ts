import { createHash } from "node:crypto";
import { KxmError } from "@kxm/contract";
import { assertNoControlPlaneFields, redactSecrets } from "@kxm/provenance";
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { parseDocument } from "yaml";
import { z } from "zod";

/** The two front-matter fields every Agent Skills `SKILL.md` must carry. */
export interface SkillFrontMatter {
  name: string;
  description: string;
}

/**
 * Agent Skills fields that grant rather than inform: `allowed-tools` pre-approves tools in harnesses that honour
 * it (Claude Code runs them without asking while the skill is active), and `hooks` makes a harness run commands.
 * A promoted skill carries instruction authority, so a grant inside it would slip a permission past review as
 * "content"; KXM refuses these like every other control-plane field.
 */
const SKILL_GRANT_FIELDS = ["allowed-tools", "hooks"] as const;

/** An Agent Skills `name`: lowercase letters, digits and single inner hyphens (at most 64 characters). */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const NAME_PATTERN = SKILL_NAME_PATTERN;

// The Agent Skills specification's field list, strictly: its reference validator (skills-ref) refuses any other
// top-level key, and a strict list also keeps harness extensions KXM cannot reason about out of governed skills.
const requiredString = () =>
  z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") });

const FrontMatterSchema = z.strictObject({
  name: requiredString()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .regex(
      NAME_PATTERN,
      "must be lowercase letters, digits and single hyphens, not starting or ending with one",
    ),
  description: requiredString()
    .max(1024, "must be at most 1024 characters")
    .refine((value) => value.trim().length > 0, "must not be empty"),
  license: z.string().min(1, "must not be empty").optional(),
  compatibility: z.string().min(1, "must not be empty").max(500, "must be at most 500 characters").optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});

const processor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

/**
 * The text the content hash is taken over. A leading UTF-8 BOM goes and CRLF and lone CR become LF, because
 * Windows editors and `core.autocrlf` add those without anyone editing the skill; trailing newlines collapse to
 * exactly one, because an editor's "final newline" setting is no edit either. White space at line ends is kept:
 * two trailing spaces are a Markdown hard line break, so removing them would hide a real change.
 */
export function normalizeSkillMarkdown(text: string): string {
  const lf = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  return `${lf.replace(/\n+$/, "")}\n`;
}

/** Hex SHA-256 of the UTF-8 bytes of {@link normalizeSkillMarkdown}(text): a skill's `contentSha256`. */
export function skillContentSha256(text: string): string {
  return createHash("sha256").update(normalizeSkillMarkdown(text), "utf8").digest("hex");
}

function slug(name: string, max: number): string {
  const dashed = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const cut = dashed.slice(0, max).replace(/-+$/, "");
  return cut.length > 0 ? cut : "skill";
}

/**
 * A skill's id: the name's slug (lowercase, runs of anything but `a-z0-9` as one hyphen, at most 40 characters,
 * `skill` when nothing is left), a dot, and the first 12 hex digits of the content hash. Equal content under an
 * equal name always gets the same id, so proposing it twice is detected.
 */
export function skillId(name: string, contentSha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(contentSha256)) {
    throw new KxmError("skill_invalid", "skill contentSha256: must be 64 lowercase hex digits");
  }
  return `${slug(name, 40)}.${contentSha256.slice(0, 12)}`;
}

function invalid(file: string, message: string): KxmError {
  return new KxmError("skill_invalid", `${file} ${message}`.replace(/\s+/g, " "));
}

function frontMatterBlock(text: string, file: string): { yaml: string; end: number } {
  const first = processor.parse(text).children[0];
  if (first?.type !== "yaml" || first.position?.end.offset === undefined) {
    throw invalid(file, "front matter: missing; SKILL.md must start with a --- YAML block ---");
  }
  return { yaml: first.value, end: first.position.end.offset };
}

function parseYamlMapping(yaml: string, file: string): Record<string, unknown> {
  const document = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
  const error = document.errors[0];
  if (error !== undefined) throw invalid(file, `front matter: YAML does not parse (${error.code})`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch {
    throw invalid(file, "front matter: YAML does not parse (aliases)");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(file, "front matter: must be a YAML mapping");
  }
  return value as Record<string, unknown>;
}

function assertNoGrants(record: Record<string, unknown>, file: string): void {
  assertNoControlPlaneFields(record, `skills (${file})`);
  const grant = SKILL_GRANT_FIELDS.find((field) => Object.hasOwn(record, field));
  if (grant !== undefined) {
    throw new KxmError(
      "context_authority_violation",
      `skills (${file}) may not carry the control-plane field "${grant}"`,
    );
  }
}

function validate(record: Record<string, unknown>, file: string): SkillFrontMatter & Record<string, unknown> {
  const result = FrontMatterSchema.safeParse(record);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === "unrecognized_keys") {
    // The key is named, and a key can be a secret pasted in the wrong place.
    throw invalid(file, redactSecrets(`front matter ${issue.keys.join(", ")}: not an Agent Skills field`));
  }
  const field = issue === undefined || issue.path.length === 0 ? "" : ` ${issue.path.map(String).join(".")}`;
  throw invalid(file, redactSecrets(`front matter${field}: ${issue?.message ?? "is invalid"}`));
}

/**
 * Parses an Agent Skills `SKILL.md`: remark-frontmatter finds the leading YAML block, `yaml` parses it and zod
 * checks it. Checked in order: a front-matter block; YAML that parses into a mapping; no control-plane field
 * (403 `context_authority_violation`, including `allowed-tools` and `hooks`); then the Agent Skills fields
 * (`skill_invalid`): `name` 1-64 lowercase letters, digits and single inner hyphens, `description` 1-1024
 * characters, optional `license`, `compatibility` (at most 500) and `metadata` (a string map), and nothing else.
 * Messages name `file`, the field and the rule, never a value. The body is returned normalised (LF line ends).
 */
export function parseSkillMarkdown(
  text: string,
  file = "SKILL.md",
): { frontMatter: SkillFrontMatter & Record<string, unknown>; body: string } {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const block = frontMatterBlock(normalised, file);
  const record = parseYamlMapping(block.yaml, file);
  assertNoGrants(record, file);
  const frontMatter = validate(record, file);
  return { frontMatter, body: normalised.slice(block.end).replace(/^\n/, "") };
}
