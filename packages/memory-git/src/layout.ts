// The `.kxm/` folder's layout: every path in it, named once, project-relative and as absolute paths under a root.
import { join } from "node:path";

/** The folder that holds everything KXM keeps in a project, at its root. */
export const KXM_DIR = ".kxm";

/** The folder name that marks memory candidates below the memory folder: never memory, never in the revision. */
export const CANDIDATES_FOLDER = "candidates";

/**
 * Every path of the `.kxm/` folder, project-relative with forward slashes, as errors, git and the docs name them
 * (docs/guides/git-memory.md, docs/guides/runtime.md, docs/guides/wiki.md).
 */
export const KXM_PATHS = {
  /** Authored memory: one `kxm.memory.v1` fact per `*.md` file directly in it; reviewed, committed. */
  memory: `${KXM_DIR}/memory`,
  /** Memory candidates (`kxm memory note`), one `cand_<scope>_<hex>.md` each; never loaded. */
  memoryCandidates: `${KXM_DIR}/memory/${CANDIDATES_FOLDER}`,
  /** Rejected memory candidates (`kxm memory reject`), kept with the reason as evidence; never loaded. */
  rejectedMemoryCandidates: `${KXM_DIR}/memory/${CANDIDATES_FOLDER}/rejected`,
  /**
   * What `kxm memory verify` found: per fact, when its check last ran, at which commit, the command and the result.
   * Committed beside memory, outside the memory folder (so a verification never changes the memory revision); the
   * hub reads it at HEAD, like memory, and withholds a failing fact whose check says `onFailure: withhold`.
   */
  memoryChecks: `${KXM_DIR}/memory-checks.json`,
  /** The skill store, with its `.gitattributes` and one folder per skill status. */
  skills: `${KXM_DIR}/skills`,
  /** Proposed skills, `<id>/metadata.json` beside `<id>/<name>/`. */
  skillCandidates: `${KXM_DIR}/skills/${CANDIDATES_FOLDER}`,
  /**
   * The distillation pass's scratch folder (`kxm run`): the agent may write only `<name>/SKILL.md` in it; the runner
   * proposes what is valid and removes the folder. Never a skill id (ids hold a dot), so skill listings skip it.
   */
  distilledSkills: `${KXM_DIR}/skills/${CANDIDATES_FOLDER}/distilled`,
  /** Promoted skills: what memory serves and the revision covers. */
  promotedSkills: `${KXM_DIR}/skills/promoted`,
  /** Rejected skills, kept with the reason. */
  rejectedSkills: `${KXM_DIR}/skills/rejected`,
  /** The hub's and the CLI's default SQLite database (KXM_DB_PATH overrides it); local, never committed. */
  database: `${KXM_DIR}/state/kxm.db`,
  /** Runtime workflows, `<name>.yaml`. */
  workflows: `${KXM_DIR}/workflows`,
  /** Which program plays each agent id of a workflow. */
  agents: `${KXM_DIR}/agents.yaml`,
  /** Runs, one `<run-id>/` folder each with run.json, events, manifests and results; local, never committed. */
  runs: `${KXM_DIR}/runs`,
  /** The learning loop's episodes, one JSON line per step attempt of every run; runner-owned, never committed. */
  episodes: `${KXM_DIR}/runs/episodes.jsonl`,
  /** The outcome ledger, rolled up after each run from the runs' own files; runner-owned, never committed. */
  ledger: `${KXM_DIR}/runs/ledger.json`,
  /** The learning loop's settings (`kxm run`: episodes digest, breaker, distillation, retrospective). */
  learning: `${KXM_DIR}/learning.yaml`,
  /** The project's mode definitions (`kxm mode`). */
  modes: `${KXM_DIR}/modes.yaml`,
  /** The compiled knowledge wiki (`@kxm/wiki` names it too, as `WIKI_DIR`: it is pure and imports no layout). */
  wiki: `${KXM_DIR}/knowledge/wiki`,
} as const;

/** The folders a checkout's authored memory is read from, in the revision's order: memory, then promoted skills. */
export const AUTHORED_MEMORY_PATHS = [KXM_PATHS.memory, KXM_PATHS.promotedSkills] as const;

/** `<root>/.kxm`. */
export function kxmDir(root: string): string {
  return join(root, KXM_DIR);
}

/** `<root>/.kxm/memory`, where authored memory facts live. */
export function memoryDir(root: string): string {
  return join(root, KXM_PATHS.memory);
}

/** `<root>/.kxm/memory/candidates`, where noted candidates wait for review. */
export function memoryCandidatesDir(root: string): string {
  return join(root, KXM_PATHS.memoryCandidates);
}

/** `<root>/.kxm/skills`, the skill store. */
export function skillsDir(root: string): string {
  return join(root, KXM_PATHS.skills);
}

/** `<root>/.kxm/skills/promoted`. */
export function promotedSkillsDir(root: string): string {
  return join(root, KXM_PATHS.promotedSkills);
}

/** The absolute folders of {@link AUTHORED_MEMORY_PATHS} under `root`, in the same order. */
export function authoredMemoryDirs(root: string): string[] {
  return AUTHORED_MEMORY_PATHS.map((path) => join(root, path));
}

/**
 * True for a path relative to the memory folder that lies in a `candidates` folder at any depth below it: never
 * memory, never part of the revision.
 */
export function isMemoryCandidate(relToMemory: string): boolean {
  return relToMemory.split("/").slice(0, -1).includes(CANDIDATES_FOLDER);
}
