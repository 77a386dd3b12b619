import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ContextItem, compareCodeUnits } from "@kxm/contract";
import { type CheckRecords, checkFailing, parseCheckRecords } from "./fact-checks.js";
import { admitFact } from "./fact-item.js";
import {
  type CommittedFile,
  type CommittedReadOptions,
  checkTrackedClean,
  type GitFileState,
  readCommittedFiles,
} from "./git.js";
import { AUTHORED_MEMORY_PATHS, isMemoryCandidate, KXM_PATHS } from "./layout.js";
import { checkMemoryFile, type MemoryFact, type MemoryProblem } from "./memory-file.js";
import { duplicateIdProblem } from "./memory-listing.js";
import { computeMemoryRevision, type RevisionFile, revisionOf } from "./revision.js";
import { loadPromotedSkillItems } from "./skills/items.js";

const MEMORY_PREFIX = `${KXM_PATHS.memory}/`;
const SKILL_PREFIX = `${KXM_PATHS.promotedSkills}/`;

/** A memory or promoted-skill file whose work-tree or index content differs from HEAD, so it is not served. */
export interface WithheldFile {
  /** Project-relative, forward slashes. */
  path: string;
  state: GitFileState;
}

/** The reviewed memory of one checkout: what HEAD holds, and what the work tree holds that HEAD does not. */
export interface CommittedMemory {
  /** The commit served; undefined when the repository has no commit yet or git could not be read. */
  commit: string | undefined;
  /** The memory revision of the served files (the formula of `computeMemoryRevision`, over HEAD's files). */
  revision: string | undefined;
  /** Active facts that became items, then verified promoted skills, each part sorted by id. */
  items: ContextItem[];
  /**
   * Ids of the items above whose fact's check says `onFailure: withhold` and whose record in the committed
   * `.kxm/memory-checks.json` failed (for the command the fact names): the hub withholds them (`check_failed`).
   */
  checkFailed: string[];
  /** Malformed committed memory files, duplicate ids and facts over a limit, in file order. */
  problems: MemoryProblem[];
  /** Committed promoted skills that did not verify, by id. */
  unverifiedSkills: string[];
  /** True when the committed promoted skills could not be listed. */
  skillsUnreadable: boolean;
  /**
   * Uncommitted changes under the memory paths (candidates excepted) and of `.kxm/memory-checks.json`, sorted by
   * path.
   */
  withheld: WithheldFile[];
  /**
   * Why nothing could be read, when the work tree holds memory or skills but git cannot vouch for any of it (or,
   * reading one earlier commit, `commit_missing`: the repository does not hold it).
   */
  unavailable: "not_a_repository" | "git_missing" | "timeout" | "failed" | "commit_missing" | undefined;
}

function byId(a: MemoryFact, b: MemoryFact): number {
  return compareCodeUnits(a.id, b.id);
}

/** The facts and problems of the files directly in `.kxm/memory`, as committed; files arrive sorted by path. */
function committedFacts(
  files: readonly CommittedFile[],
  project: string,
  records: CheckRecords,
): { items: ContextItem[]; problems: MemoryProblem[]; checkFailed: string[] } {
  const problems: MemoryProblem[] = [];
  const facts: MemoryFact[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const rel = file.path.slice(MEMORY_PREFIX.length);
    if (!file.path.startsWith(MEMORY_PREFIX) || rel.includes("/") || !rel.endsWith(".md")) continue;
    if (file.symlink) {
      problems.push({
        file: file.path,
        field: "(file)",
        rule: "is a symlink; memory files must be regular files",
      });
      continue;
    }
    const checked = checkMemoryFile(file.path, file.bytes.toString("utf8"));
    if ("problem" in checked) {
      problems.push(checked.problem);
      continue;
    }
    const duplicate = duplicateIdProblem(checked.fact, seen);
    if (duplicate) problems.push(duplicate);
    else if (checked.fact.lifecycle === "active") facts.push(checked.fact);
  }
  const items: ContextItem[] = [];
  const checkFailed: string[] = [];
  for (const fact of facts.sort(byId)) {
    const admitted = admitFact(fact, project);
    if ("problem" in admitted) problems.push(admitted.problem);
    else {
      items.push(admitted.item);
      if (fact.check?.onFailure === "withhold" && checkFailing(fact, records.get(fact.id))) {
        checkFailed.push(admitted.item.id);
      }
    }
  }
  return { items, problems, checkFailed };
}

/**
 * The committed promoted skills, verified exactly as `loadPromotedSkillItems` verifies a work tree: HEAD's files
 * are written to a private temporary folder, checked there, and the folder removed.
 */
async function committedSkills(
  files: readonly CommittedFile[],
  project: string,
): Promise<{ items: ContextItem[]; unverified: string[]; unreadable: boolean }> {
  const skillFiles = files.filter((file) => file.path.startsWith(SKILL_PREFIX));
  if (skillFiles.length === 0) return { items: [], unverified: [], unreadable: false };
  const temp = await mkdtemp(join(tmpdir(), "kxm-committed-"));
  try {
    for (const file of skillFiles) {
      const target = join(temp, ...file.path.split("/"));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      if (file.symlink) await symlink(file.bytes.toString("utf8"), target);
      else await writeFile(target, file.bytes, { mode: 0o600 });
    }
    const skills = await loadPromotedSkillItems(temp, project);
    return { ...skills, unreadable: false };
  } catch {
    return { items: [], unverified: [], unreadable: true };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function nothingServed(): CommittedMemory {
  return {
    commit: undefined,
    revision: undefined,
    items: [],
    checkFailed: [],
    problems: [],
    unverifiedSkills: [],
    skillsUnreadable: false,
    withheld: [],
    unavailable: undefined,
  };
}

/** The revision of a checkout with no memory file and no promoted skill. */
const EMPTY_REVISION = revisionOf([]);

/**
 * The authored memory and promoted skills of the checkout at `root` as HEAD holds them, as items of `project`:
 * the work tree and the index are never read for content, so an edit, a new file or a staged change reaches no
 * packet until it is committed, and a deletion takes effect when it is committed. Each committed memory file is
 * checked on its own: a malformed one, a duplicate id or a fact over a limit is a problem naming the file (never
 * its content) and the other facts are still served. Every uncommitted change is listed in `withheld`. When git
 * cannot be read (no repository, git missing, a timeout) and the work tree holds memory or skills, nothing is
 * served and `unavailable` says why. The committed `.kxm/memory-checks.json` decides `checkFailed`; a malformed
 * one is a problem, and then no fact is withheld for its check. With `options.commit` that commit is read instead
 * of HEAD (a stored packet's, for a replay): nothing is `withheld`, and a commit the repository does not hold is
 * `unavailable: "commit_missing"`.
 */
export async function readCommittedMemory(
  root: string,
  project: string,
  options: CommittedReadOptions = {},
): Promise<CommittedMemory> {
  const [committed, check] = await Promise.all([
    readCommittedFiles(root, [...AUTHORED_MEMORY_PATHS, KXM_PATHS.memoryChecks], options),
    // The check record decides what is withheld, so an uncommitted one is listed like any other authored file.
    // An earlier commit is read for what it served: the work tree says nothing about it.
    options.commit === undefined
      ? checkTrackedClean(root, [...AUTHORED_MEMORY_PATHS, KXM_PATHS.memoryChecks], options)
      : ({ status: "clean" } as const),
  ]);
  if (committed.status === "unavailable" && committed.reason === "commit_missing") {
    return { ...nothingServed(), unavailable: "commit_missing" };
  }
  if (committed.status === "unavailable" || check.status === "unavailable") {
    const reason =
      committed.status === "unavailable"
        ? committed.reason
        : check.status === "unavailable"
          ? check.reason
          : "failed";
    // A folder with no memory and no skill, in a repository or not, simply has none.
    const empty = (await computeMemoryRevision(root)) === EMPTY_REVISION;
    return { ...nothingServed(), unavailable: empty ? undefined : reason };
  }
  const files = committed.files.filter(
    (file) =>
      (file.path.startsWith(MEMORY_PREFIX) && !isMemoryCandidate(file.path.slice(MEMORY_PREFIX.length))) ||
      file.path.startsWith(SKILL_PREFIX),
  );
  const revisionFiles: RevisionFile[] = files.map((file) =>
    file.path.startsWith(MEMORY_PREFIX)
      ? { group: "memory", rel: file.path.slice(MEMORY_PREFIX.length), bytes: file.bytes }
      : { group: "skill", rel: file.path.slice(SKILL_PREFIX.length), bytes: file.bytes },
  );
  const checksFile = committed.files.find((file) => file.path === KXM_PATHS.memoryChecks && !file.symlink);
  const checks =
    checksFile === undefined
      ? { records: new Map() as CheckRecords }
      : parseCheckRecords(checksFile.path, checksFile.bytes.toString("utf8"));
  const facts = committedFacts(files, project, "records" in checks ? checks.records : new Map());
  const skills = await committedSkills(files, project);
  const withheld =
    check.status === "dirty"
      ? check.files.filter(
          (file) =>
            !(
              file.path.startsWith(MEMORY_PREFIX) && isMemoryCandidate(file.path.slice(MEMORY_PREFIX.length))
            ),
        )
      : [];
  return {
    commit: committed.commit,
    revision: revisionOf(revisionFiles),
    items: [...facts.items, ...skills.items],
    checkFailed: facts.checkFailed,
    problems: "problem" in checks ? [...facts.problems, checks.problem] : facts.problems,
    unverifiedSkills: skills.unverified,
    skillsUnreadable: skills.unreadable,
    withheld,
    unavailable: undefined,
  };
}
