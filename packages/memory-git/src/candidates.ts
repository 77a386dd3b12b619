import { createHash } from "node:crypto";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { KxmError, LIMITS } from "@kxm/contract";
import { redactSecrets } from "@kxm/provenance";
import { stringify } from "yaml";
import { projectPath, writeFileWhole } from "./files.js";
import { KXM_PATHS, memoryCandidatesDir } from "./layout.js";
import { MEMORY_SCHEMA, MEMORY_SCOPES, type MemoryScope } from "./memory-file.js";

/** What `kxm memory note` records. `source` is a source reference (a PR, a doc path), kept as `sourceRef`. */
export interface NoteOptions {
  summary: string;
  kind?: string;
  scope?: MemoryScope;
  source?: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function cleanText(field: string, value: string, max: number): string {
  const clean = redactSecrets(value.trim());
  if (clean.length === 0) throw new KxmError("memory_invalid", `${field}: must not be empty`);
  if (clean.length > max) {
    throw new KxmError("context_limits_exceeded", `${field}: over ${max} characters after redaction`);
  }
  return clean;
}

function candidateText(
  id: string,
  scope: MemoryScope,
  kind: string,
  summary: string,
  sourceRef?: string,
): string {
  // A candidate claims only what a note can: evidence, probable. Its origin is `git` (the file is reviewed and
  // merged through Git), which also leaves reviewers free to raise it to instruction when they promote it.
  const provenance: Record<string, string> = { sourceType: "git" };
  if (sourceRef !== undefined) provenance.sourceRef = sourceRef;
  const front = {
    schema: MEMORY_SCHEMA,
    id,
    scope,
    kind,
    summary,
    provenance,
    authority: "evidence",
    confidence: "probable",
    lifecycle: "active",
    evidenceRefs: [],
  };
  // lineWidth 0: never fold a long summary over several lines.
  return `---\n${stringify(front, { lineWidth: 0 })}---\n`;
}

/**
 * Records a memory candidate in `.kxm/memory/candidates/cand_<scope>_<12 hex>.md` (scope `project` and kind
 * `learning` unless given; authority evidence, confidence probable). The summary is trimmed and redacted, then
 * must hold 1 to 4,000 characters. The hex is the start of SHA-256 over `scope\0kind\0summary` (the redacted
 * summary), so noting the same thing twice finds the existing file, writes nothing and answers `created: false`
 * (so does noting a candidate that was rejected: `file` is then its record under `candidates/rejected/`).
 * Candidates are never loaded and never part of the memory revision.
 */
export async function noteCandidate(
  root: string,
  options: NoteOptions,
): Promise<{ id: string; file: string; created: boolean }> {
  const scope = options.scope ?? "project";
  if (!(MEMORY_SCOPES as readonly string[]).includes(scope)) {
    throw new KxmError("memory_invalid", `scope: must be one of ${MEMORY_SCOPES.join(", ")}`);
  }
  const kind = cleanText("kind", options.kind ?? "learning", 200);
  const summary = cleanText("summary", options.summary, LIMITS.summaryChars);
  const sourceRef =
    options.source === undefined ? undefined : cleanText("source", options.source, LIMITS.sourceRefChars);
  const hex = createHash("sha256").update(`${scope}\0${kind}\0${summary}`).digest("hex").slice(0, 12);
  const id = `cand_${scope}_${hex}`;
  const path = join(memoryCandidatesDir(root), `${id}.md`);
  const file = projectPath(root, path);
  if (await exists(path)) return { id, file, created: false };
  // A rejected candidate is kept as evidence of what was considered: noting it again finds that record.
  const rejected = join(root, KXM_PATHS.rejectedMemoryCandidates, `${id}.md`);
  if (await exists(rejected)) return { id, file: projectPath(root, rejected), created: false };
  await writeFileWhole(path, candidateText(id, scope, kind, summary, sourceRef));
  return { id, file, created: true };
}
