import { lstat, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { stringify } from "yaml";
import { admitFact } from "./fact-item.js";
import { projectPath, writeFileWhole } from "./files.js";
import { KXM_PATHS, memoryCandidatesDir, memoryDir } from "./layout.js";
import {
  checkMemoryFile,
  formatMemoryProblem,
  type MemoryFact,
  type MemoryProblem,
  parseMemoryFile,
} from "./memory-file.js";
import { checkMemoryEntry, listMemoryEntries } from "./memory-listing.js";
import { MEMORY_AUTHORITIES, MEMORY_CONFIDENCES, MEMORY_SCHEMA } from "./memory-rules.js";
import { checkActor, checkNow, checkReason } from "./skills/options.js";

// Reviewing memory candidates: a person lists what `kxm memory note` and the runner's retrospectives noted, then
// accepts one into `.kxm/memory/` (with the fact id and authority the reviewer gives, for a commit) or rejects it
// with a reason. A rejected candidate is kept under `candidates/rejected/` as evidence of what was considered; like
// every file below a `candidates` folder it is never loaded and never part of the memory revision.

/** A candidate id as `noteCandidate` makes it. */
const CANDIDATE_ID_PATTERN = /^cand_(?:agent|project|run|operator)_[0-9a-f]{12}$/;

/** One candidate waiting for review. */
export interface MemoryCandidate {
  id: string;
  scope: MemoryFact["scope"];
  kind: string;
  summary: string;
  /** `provenance.sourceRef`, or null. */
  source: string | null;
  /** Project-relative path. */
  file: string;
}

/** `.kxm/memory/candidates/rejected/<id>.md`. */
function rejectedPath(root: string, id: string): string {
  return join(root, KXM_PATHS.rejectedMemoryCandidates, `${id}.md`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function asCandidate(fact: MemoryFact): MemoryCandidate {
  return {
    id: fact.id,
    scope: fact.scope,
    kind: fact.kind,
    summary: fact.summary,
    source: fact.provenance.sourceRef ?? null,
    file: fact.file,
  };
}

/**
 * Every candidate in `.kxm/memory/candidates/*.md` (not `rejected/`), sorted by id, and the files there that do
 * not parse as memory files (in name order), so one broken candidate never hides the rest.
 */
export async function listMemoryCandidates(
  root: string,
): Promise<{ candidates: MemoryCandidate[]; problems: MemoryProblem[] }> {
  const candidates: MemoryCandidate[] = [];
  const problems: MemoryProblem[] = [];
  for (const entry of await listMemoryEntries(root, memoryCandidatesDir(root))) {
    const checked = await checkMemoryEntry(entry);
    if ("problem" in checked) problems.push(checked.problem);
    else candidates.push(asCandidate(checked.fact));
  }
  candidates.sort((a, b) => compareCodeUnits(a.id, b.id));
  return { candidates, problems };
}

/** The candidate `id`, read and checked; `memory_candidate_not_found` when it does not wait for review. */
async function readCandidate(root: string, id: string): Promise<{ path: string; fact: MemoryFact }> {
  if (!CANDIDATE_ID_PATTERN.test(id)) {
    throw new KxmError(
      "invalid_request",
      "candidate: must be a candidate id such as cand_project_0123456789ab",
    );
  }
  const path = join(memoryCandidatesDir(root), `${id}.md`);
  let text: string;
  try {
    const info = await lstat(path);
    if (!info.isFile())
      throw new KxmError("memory_invalid", `${projectPath(root, path)}: (file): must be a regular file`);
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    const rejected = await exists(rejectedPath(root, id));
    throw new KxmError(
      "memory_candidate_not_found",
      rejected
        ? `no candidate ${id} waits for review; it was rejected`
        : `no candidate ${id} waits for review`,
    );
  }
  const checked = checkMemoryFile(projectPath(root, path), text);
  if ("problem" in checked) throw new KxmError("memory_invalid", formatMemoryProblem(checked.problem));
  return { path, fact: checked.fact };
}

function frontMatterText(front: Record<string, unknown>, body: string): string {
  // lineWidth 0: never fold a long summary over several lines.
  const head = `---\n${stringify(front, { lineWidth: 0 })}---\n`;
  return body === "" ? head : `${head}\n${body}\n`;
}

function factFront(fact: MemoryFact): Record<string, unknown> {
  const provenance: Record<string, string> = { sourceType: fact.provenance.sourceType };
  if (fact.provenance.sourceRef !== undefined) provenance.sourceRef = fact.provenance.sourceRef;
  return {
    schema: MEMORY_SCHEMA,
    id: fact.id,
    scope: fact.scope,
    kind: fact.kind,
    summary: fact.summary,
    provenance,
    authority: fact.authority,
    confidence: fact.confidence,
    lifecycle: fact.lifecycle,
    evidenceRefs: fact.evidenceRefs,
  };
}

/** Whether a fact in `.kxm/memory/` holds `id`, or its file name is taken; unparsable files are skipped. */
async function factIdTaken(root: string, id: string): Promise<string | undefined> {
  const path = join(memoryDir(root), `${id}.md`);
  if (await exists(path)) return projectPath(root, path);
  for (const entry of await listMemoryEntries(root, memoryDir(root))) {
    const checked = await checkMemoryEntry(entry);
    if ("fact" in checked && checked.fact.id === id) return entry.file;
  }
  return undefined;
}

export interface AcceptOptions {
  /** The fact id the reviewer gives: the file becomes `.kxm/memory/<id>.md`. */
  id: string;
  authority: (typeof MEMORY_AUTHORITIES)[number];
  /** Default: the candidate's (`probable` as noted). */
  confidence?: (typeof MEMORY_CONFIDENCES)[number];
  acceptedBy: string;
  now: Date;
}

export interface AcceptedCandidate {
  candidate: string;
  id: string;
  /** Project-relative path of the fact written. */
  file: string;
  authority: string;
  confidence: string;
  acceptedBy: string;
  acceptedAt: string;
}

/**
 * Accepts candidate `candidateId`: writes `.kxm/memory/<id>.md`, a `kxm.memory.v1` fact with the candidate's
 * scope, kind, summary and provenance, the reviewer's authority (and confidence, else the candidate's), evidence
 * `candidate:<candidate id>` added, and `acceptedBy`/`acceptedAt` recorded; it is checked by the memory rules
 * before it is written, then the candidate file is removed. The reviewer commits the fact. Refused, writing
 * nothing: an id already held (`memory_fact_exists`), an invalid id or authority (`memory_invalid`), an unknown
 * candidate (`memory_candidate_not_found`).
 */
export async function acceptMemoryCandidate(
  root: string,
  candidateId: string,
  options: AcceptOptions,
): Promise<AcceptedCandidate> {
  const acceptedBy = checkActor(options.acceptedBy, "acceptedBy", "invalid_request");
  const acceptedAt = checkNow(options.now);
  if (!(MEMORY_AUTHORITIES as readonly string[]).includes(options.authority)) {
    throw new KxmError("memory_invalid", `authority: must be one of ${MEMORY_AUTHORITIES.join(", ")}`);
  }
  if (
    options.confidence !== undefined &&
    !(MEMORY_CONFIDENCES as readonly string[]).includes(options.confidence)
  ) {
    throw new KxmError("memory_invalid", `confidence: must be one of ${MEMORY_CONFIDENCES.join(", ")}`);
  }
  const { path: candidatePath, fact: candidate } = await readCandidate(root, candidateId);
  const target = join(memoryDir(root), `${options.id}.md`);
  const file = projectPath(root, target);
  const evidence = `candidate:${candidate.id}`;
  const front = {
    ...factFront(candidate),
    id: options.id,
    authority: options.authority,
    confidence: options.confidence ?? candidate.confidence,
    lifecycle: "active",
    evidenceRefs: [...candidate.evidenceRefs.filter((ref) => ref !== evidence), evidence],
    acceptedBy,
    acceptedAt,
  };
  const text = frontMatterText(front, candidate.body);
  // The memory loader's own rules (the id pattern among them), then the delivery rule agents are shown by.
  const fact = parseMemoryFile(file, text);
  const admitted = admitFact(fact);
  if ("problem" in admitted) throw new KxmError("memory_invalid", formatMemoryProblem(admitted.problem));
  const taken = await factIdTaken(root, options.id);
  if (taken !== undefined)
    throw new KxmError("memory_fact_exists", `id: ${options.id} is already held by ${taken}`);
  await writeFileWhole(target, text);
  await rm(candidatePath, { force: true });
  return {
    candidate: candidate.id,
    id: fact.id,
    file,
    authority: fact.authority,
    confidence: fact.confidence,
    acceptedBy,
    acceptedAt,
  };
}

export interface RejectedCandidate {
  id: string;
  /** Project-relative path of the record kept. */
  file: string;
  rejectedBy: string;
  rejectedAt: string;
  reason: string;
}

/**
 * Rejects candidate `candidateId`: its front matter and body move to `.kxm/memory/candidates/rejected/<id>.md` with
 * `rejectedBy`, `rejectedAt` and the redacted `reason` (1 to 500 characters) added, kept as evidence of what was
 * considered; then the candidate file is removed. Never loaded, never in the revision. Noting the same summary
 * again finds this record and writes nothing.
 */
export async function rejectMemoryCandidate(
  root: string,
  candidateId: string,
  options: { reason: string; rejectedBy: string; now: Date },
): Promise<RejectedCandidate> {
  const rejectedBy = checkActor(options.rejectedBy, "rejectedBy", "invalid_request");
  const reason = checkReason(options.reason);
  const rejectedAt = checkNow(options.now);
  const { path, fact } = await readCandidate(root, candidateId);
  const target = rejectedPath(root, fact.id);
  await writeFileWhole(
    target,
    frontMatterText({ ...factFront(fact), rejectedBy, rejectedAt, reason }, fact.body),
  );
  await rm(path, { force: true });
  return { id: fact.id, file: projectPath(root, target), rejectedBy, rejectedAt, reason };
}
