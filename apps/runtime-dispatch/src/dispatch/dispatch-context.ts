import { createHash } from "node:crypto";
import { assemblePacket } from "@kxm/arbiter";
import {
  type ContextItem,
  compareCodeUnits,
  type ItemKind,
  isKxmError,
  roleForAgentId,
  rolePolicy,
  SHARED_PROJECT,
  WITHHELD_REASONS,
  type WithheldReason,
} from "@kxm/contract";
import {
  activeFacts,
  checkTrackedClean,
  computeMemoryRevision,
  factToContextItem,
  factWithheldReason,
  type GitCheck,
  loadPromotedSkillItems,
  readCheckRecords,
} from "@kxm/memory-git";
import { AUTHORED_MEMORY_PATHS, isMemoryCandidate, KXM_PATHS } from "@kxm/memory-git/layout";
import type { WorkflowStep } from "../definitions/workflow.js";
import type { WithheldAuthored, WithheldLookup } from "../hub/hub-withheld.js";
import type { Run } from "../runs/runs.js";
import {
  DISPATCH_GAPS,
  itemsWithheldGap,
  memoryRejectedGap,
  renderDeferredGap,
  reviewDueGap,
  skillUnverifiedGap,
} from "./gaps.js";

/** The selection budget of dispatch context, in tokens. */
const DISPATCH_BUDGET_TOKENS = 4_000;
/** At most this many project items are rendered; the rest are reported as render-deferred. */
const MAX_PROJECT_ITEMS = 5;
/** The arbiter's task limit; the task is cut to it. */
const MAX_TASK_CHARS = 2_000;
/** The revision of a project with no memory file and no promoted skill (SHA-256 of nothing). */
const EMPTY_REVISION = `ctxrev_${createHash("sha256").digest("hex")}`;

/** One selected item and its rounded arbiter score. */
export interface ContextEntry {
  item: ContextItem;
  score: number;
}

/** What dispatch context delivers to one step, before rendering. */
export interface DispatchContext {
  /** The role the agent id maps to (`critic-arch` is `critic`). */
  role: string;
  /** The run's pinned memory revision. */
  revision: string | undefined;
  sharedDefaults: ContextEntry[];
  currentState: ContextEntry[];
  /** Project knowledge, evidence and episode items in rank order, at most {@link MAX_PROJECT_ITEMS}. */
  projectItems: ContextEntry[];
  skills: ContextEntry[];
  contradictions: ContextEntry[];
  /**
   * The episodes digest in rank order: filled by dispatch (`learning/digest.ts`) from the runner's episodes file,
   * not from memory, so it is delivered even when memory is withheld.
   */
  episodes: ContextEntry[];
  /**
   * Dispatch gaps in the order they arose, then the arbiter's budget gaps, then render deferral, then the episodes
   * digest's gaps.
   */
  gaps: string[];
}

export interface DispatchContextOptions {
  root: string;
  run: Run;
  step: WorkflowStep;
  /** The whole git check's time limit; default 5,000 ms. */
  gitTimeoutMs?: number;
  /** The git binary; default `git` on PATH. */
  gitBinary?: string;
  /** The time expiry and review dates are judged at; default the clock when called. */
  now?: Date;
  /**
   * Asks the run's hub which authored items it withholds (revoked, forgotten, expired, a failed check); without
   * one, dispatch reads local git only and asks nobody.
   */
  withheld?: WithheldLookup;
}

/**
 * The kinds dispatch asks for: the role's kinds in its priority order, then `skill` when the role lacks it, so
 * promoted skills reach every role's Active Skills.
 */
function dispatchKinds(role: string): ItemKind[] {
  const kinds: ItemKind[] = [...rolePolicy(role).kinds];
  if (!kinds.includes("skill")) kinds.push("skill");
  return kinds;
}

/** Instructions, a blank line and the run prompt, cut to 2,000 code units (never inside a surrogate pair). */
export function dispatchTask(instructions: string, prompt: string): string {
  const task = `${instructions}\n\n${prompt}`;
  if (task.length <= MAX_TASK_CHARS) return task;
  let cut = task.slice(0, MAX_TASK_CHARS);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

/** True when `path` (project-relative) lies in a `candidates` folder below `.kxm/memory`: never memory. */
function isCandidatePath(path: string): boolean {
  const memory = `${KXM_PATHS.memory}/`;
  return path.startsWith(memory) && isMemoryCandidate(path.slice(memory.length));
}

/** The committed-content verdict, ignoring candidate files (untracked, ignored or not: they are never read). */
function committedContentGap(check: GitCheck): string | undefined {
  if (check.status === "unavailable") return DISPATCH_GAPS.gitUnavailable;
  if (check.status === "dirty" && check.files.some((file) => !isCandidatePath(file.path))) {
    return DISPATCH_GAPS.uncommitted;
  }
  return undefined;
}

function emptyContext(role: string, revision: string | undefined, gaps: string[]): DispatchContext {
  return {
    role,
    revision,
    sharedDefaults: [],
    currentState: [],
    projectItems: [],
    skills: [],
    contradictions: [],
    episodes: [],
    gaps,
  };
}

/**
 * The deliverable facts and verified promoted skills of the checkout, less what is withheld: expired and
 * check-failing facts by the hub's rule, judged here, then whatever `hub` names (decision 0017). The withheld are
 * counted in `dispatch_context_items_withheld:<reason>:<n>` gaps in reason order, after the skills' gaps.
 */
async function loadPool(
  root: string,
  project: string,
  gaps: string[],
  nowMs: number,
  hub: WithheldAuthored,
): Promise<ContextItem[]> {
  const pool: ContextItem[] = [];
  const withheld = new Map<WithheldReason, number>();
  const withhold = (reason: WithheldReason) => withheld.set(reason, (withheld.get(reason) ?? 0) + 1);
  try {
    const { records } = await readCheckRecords(root);
    for (const fact of await activeFacts(root)) {
      if (fact.scope !== "project" && fact.scope !== "operator") continue;
      const reason = factWithheldReason(fact, records, nowMs);
      if (reason !== undefined) {
        withhold(reason);
        continue;
      }
      let item: ContextItem;
      try {
        item = factToContextItem(fact, project);
      } catch (error) {
        if (!isKxmError(error)) throw error;
        gaps.push(memoryRejectedGap(fact.id));
        continue;
      }
      const byHub = hub.get(item.id);
      if (byHub === undefined) pool.push(item);
      else withhold(byHub);
    }
  } catch (error) {
    if (!isKxmError(error)) throw error;
    gaps.push(DISPATCH_GAPS.memoryUnreadable);
  }
  try {
    const skills = await loadPromotedSkillItems(root, project);
    for (const item of skills.items) {
      const byHub = hub.get(item.id);
      if (byHub === undefined) pool.push(item);
      else withhold(byHub);
    }
    for (const id of skills.unverified) gaps.push(skillUnverifiedGap(id));
  } catch {
    gaps.push(DISPATCH_GAPS.skillsUnreadable);
  }
  for (const reason of WITHHELD_REASONS) {
    const count = withheld.get(reason);
    if (count !== undefined) gaps.push(itemsWithheldGap(reason, count));
  }
  return pool;
}

/**
 * Assembles dispatch context for one step from local Git, as the guide's "Context for Runtime agents" defines it,
 * less what the run's hub withholds when one is configured (`withheld`, asked once per call: every step attempt).
 * Never throws: whatever is withheld becomes a gap and the step runs without it.
 */
export async function assembleDispatchContext(options: DispatchContextOptions): Promise<DispatchContext> {
  const { root, run, step } = options;
  const role = roleForAgentId(step.agent);
  const pinned = run.memoryRevision;
  if (pinned === undefined) return emptyContext(role, pinned, [DISPATCH_GAPS.notLoaded]);
  try {
    const current = await computeMemoryRevision(root);
    // Nothing to deliver and nothing changed: dispatch exactly as without dispatch context.
    if (current === EMPTY_REVISION && pinned === EMPTY_REVISION) return emptyContext(role, pinned, []);
    const check = await checkTrackedClean(root, AUTHORED_MEMORY_PATHS, {
      ...(options.gitTimeoutMs === undefined ? {} : { timeoutMs: options.gitTimeoutMs }),
      ...(options.gitBinary === undefined ? {} : { gitBinary: options.gitBinary }),
    });
    const withheld =
      committedContentGap(check) ?? (current === pinned ? undefined : DISPATCH_GAPS.revisionDrift);
    if (withheld !== undefined) return emptyContext(role, pinned, [withheld]);

    let hub: WithheldAuthored = new Map();
    if (options.withheld !== undefined) {
      try {
        hub = await options.withheld(run.project);
      } catch {
        // Fail closed: what the hub withholds cannot be known, so no authored item is served; the step still runs.
        return emptyContext(role, pinned, [DISPATCH_GAPS.hubUnreachable]);
      }
    }
    const gaps: string[] = [];
    const nowMs = (options.now ?? new Date()).getTime();
    const pool = await loadPool(root, run.project, gaps, nowMs, hub);
    if (pool.length === 0) return emptyContext(role, pinned, gaps);
    const { packet, audit } = assemblePacket(pool, {
      project: run.project,
      role,
      task: dispatchTask(step.instructions, run.prompt),
      budgetTokens: DISPATCH_BUDGET_TOKENS,
      includeKinds: dispatchKinds(role),
    });
    gaps.push(...packet.unresolvedGaps);
    const scores = new Map(audit.selectedIds.map((id, i) => [id, audit.relevance.selected[i] ?? 0]));
    const entry = (item: ContextItem): ContextEntry => ({ item, score: scores.get(item.id) ?? 0 });
    const context = emptyContext(role, pinned, gaps);
    context.contradictions = packet.contradictions.map(entry);
    context.currentState = packet.currentState.map(entry);
    context.skills = packet.skills.map(entry);
    const order = new Map(audit.selectedIds.map((id, i) => [id, i]));
    const general = [...packet.knowledge, ...packet.evidence, ...packet.episodes].sort(
      (a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
    );
    context.sharedDefaults = general.filter((item) => item.project === SHARED_PROJECT).map(entry);
    const project = general.filter((item) => item.project !== SHARED_PROJECT).map(entry);
    context.projectItems = project.slice(0, MAX_PROJECT_ITEMS);
    if (project.length > MAX_PROJECT_ITEMS) gaps.push(renderDeferredGap(project.length - MAX_PROJECT_ITEMS));
    const delivered = [...context.sharedDefaults, ...context.currentState, ...context.projectItems];
    const due = delivered
      .filter(({ item }) => item.reviewBy !== undefined && Date.parse(item.reviewBy) <= nowMs)
      .map(({ item }) => item.id)
      .sort(compareCodeUnits);
    for (const id of due) gaps.push(reviewDueGap(id));
    return context;
  } catch {
    return emptyContext(role, pinned, [DISPATCH_GAPS.failed]);
  }
}
