// A checkout's authored memory and promoted skills as its HEAD commits them, with their gaps and audit.
import type { ContextItem, PacketMemory, ProjectRecord } from "@kxm/contract";
import { type CommittedMemory, formatMemoryProblem, readCommittedMemory } from "@kxm/memory-git";
import type { FastifyBaseLogger } from "fastify";
import { checkoutUnavailable, kxmFolderGap } from "./checkout.js";
import { describeError } from "./logging.js";

/** Authored memory and promoted skills of one checkout, as committed at its HEAD. */
export interface Authored {
  /** What was read (commit, revision, withheld files, problems): equal keys give equal items, gaps and audit. */
  readonly key: string | undefined;
  readonly items: readonly ContextItem[];
  /** Ids of `items` the committed fact checks withhold (`check_failed`). */
  readonly checkFailed: readonly string[];
  /** The gaps every packet and recall of the project reports, in a fixed order. */
  readonly gaps: readonly string[];
  /** The audit's `memory`; undefined for a project without a checkout. */
  readonly memory: PacketMemory | undefined;
}

/** What a project without a checkout serves: nothing. */
export const NO_CHECKOUT: Authored = {
  key: undefined,
  items: [],
  checkFailed: [],
  gaps: [],
  memory: undefined,
};

/** A path as a gap may name it: control characters escaped, so one gap stays one line wherever it is printed. */
function gapPath(path: string): string {
  return path.replace(/\p{Cc}/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The gaps of a checkout's authored memory, in this order: `memory_unavailable:<reason>` (git cannot vouch for
 * any of it, so none is served), `memory_invalid:<file>: <field>: <rule>` per committed file left out (the
 * message `kxm memory validate` prints; never the file's content), `memory_skill_unverified:<id>`,
 * `memory_skills_unreadable`, then `memory_withheld:<state>:<path>` per uncommitted file.
 */
function authoredGaps(memory: CommittedMemory): string[] {
  const gaps: string[] = [];
  if (memory.unavailable !== undefined) gaps.push(`memory_unavailable:${memory.unavailable}`);
  for (const problem of memory.problems) gaps.push(`memory_invalid:${gapPath(formatMemoryProblem(problem))}`);
  for (const id of memory.unverifiedSkills) gaps.push(`memory_skill_unverified:${gapPath(id)}`);
  if (memory.skillsUnreadable) gaps.push("memory_skills_unreadable");
  for (const file of memory.withheld) gaps.push(`memory_withheld:${file.state}:${gapPath(file.path)}`);
  return gaps;
}

/**
 * The active memory facts and verified promoted skills of the project's own checkout as its HEAD commits them,
 * as items of that project (operator-scope facts as `_shared` defaults), with the gaps and the audit's `memory`.
 * A project without a checkout has none. Uncommitted content is never served; a malformed committed file leaves
 * out that file only. Problems are logged by file name and count, never content.
 */
export async function readAuthored(project: ProjectRecord, log: FastifyBaseLogger): Promise<Authored> {
  const root = project.checkoutRoot;
  if (root === null) return NO_CHECKOUT;
  const unavailable = await checkoutUnavailable(root);
  if (unavailable !== undefined) {
    log.warn({ event: "memory_unavailable", project: project.id, reason: unavailable });
    const audit: PacketMemory = { commit: null, revision: null, withheld: [] };
    const gaps = [`memory_unavailable:${unavailable}`];
    return { key: JSON.stringify([audit, gaps]), items: [], checkFailed: [], gaps, memory: audit };
  }
  let memory: CommittedMemory;
  try {
    memory = await readCommittedMemory(root, project.id);
  } catch (error) {
    log.warn({ event: "memory_unreadable", project: project.id, error: describeError(error) });
    return {
      key: undefined,
      items: [],
      checkFailed: [],
      gaps: ["memory_unavailable:failed"],
      memory: { commit: null, revision: null, withheld: [] },
    };
  }
  if (memory.unavailable !== undefined) {
    log.warn({ event: "memory_unavailable", project: project.id, reason: memory.unavailable });
  }
  if (memory.problems.length > 0) {
    log.warn({ event: "memory_invalid", project: project.id, files: memory.problems.map((p) => p.file) });
  }
  if (memory.unverifiedSkills.length > 0) {
    log.warn({ event: "skills_unverified", project: project.id, skillIds: memory.unverifiedSkills });
  }
  const audit: PacketMemory = {
    commit: memory.commit ?? null,
    revision: memory.revision ?? null,
    withheld: memory.withheld.map(({ path, state }) => ({ path, state })),
  };
  const gaps = authoredGaps(memory);
  const kxm = await kxmFolderGap(root);
  if (kxm !== undefined) {
    log.warn({ event: "memory_kxm_problem", project: project.id, gap: kxm });
    gaps.splice(memory.unavailable === undefined ? 0 : 1, 0, kxm);
  }
  return {
    key: JSON.stringify([audit, gaps, memory.checkFailed]),
    items: memory.items,
    checkFailed: memory.checkFailed,
    gaps,
    memory: audit,
  };
}
