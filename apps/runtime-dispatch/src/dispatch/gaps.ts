import type { WithheldReason } from "@kxm/contract";

/** The dispatch gap strings of the guide's "Context for Runtime agents" table, exactly. */
export const DISPATCH_GAPS = {
  uncommitted: "dispatch_context_withheld:uncommitted",
  gitUnavailable: "dispatch_context_withheld:git_unavailable",
  revisionDrift: "dispatch_context_withheld:memory_revision_drift",
  /** A hub is configured but could not say what it withholds: no authored item is served. */
  hubUnreachable: "dispatch_context_withheld:hub_unreachable",
  memoryUnreadable: "dispatch_context_memory_unreadable",
  skillsUnreadable: "dispatch_context_skills_unreadable",
  notLoaded: "dispatch_context_not_loaded",
  failed: "dispatch_context_failed",
  /** The episodes file exists but could not be read: no digest. */
  episodesUnreadable: "dispatch_context_episodes_unreadable",
  /** The episodes digest could not be built: no digest. */
  episodesFailed: "dispatch_context_episodes_failed",
} as const;

/** `dispatch_context_memory_rejected:<id>`: one fact (its memory id) could not become a context item. */
export function memoryRejectedGap(factId: string): string {
  return `dispatch_context_memory_rejected:${factId}`;
}

/** `dispatch_context_skill_unverified:<id>`: a promoted skill does not match its hash. */
export function skillUnverifiedGap(skillId: string): string {
  return `dispatch_context_skill_unverified:${skillId}`;
}

/** `dispatch_context_episodes_skipped:<n>`: n lines of the episodes file are corrupt and were skipped. */
export function episodesSkippedGap(count: number): string {
  return `dispatch_context_episodes_skipped:${count}`;
}

/** `dispatch_context_render_deferred:<n>`: n more project items were selected than the prompt renders. */
export function renderDeferredGap(count: number): string {
  return `dispatch_context_render_deferred:${count}`;
}

/** The packet could not be pruned to its budget without touching the objective, plan pointer or criteria. */
export const TASK_INVIOLABLE_GAP = "context_budget_exceeded_task_inviolable";

/**
 * `dispatch_context_items_withheld:<reason>:<n>`: n authored items were left out by the hub's rules: `expired`
 * (`expiresAt` reached) or `check_failed` (a failing check whose policy is `withhold`), judged here for facts, and
 * whatever the run's hub says it withholds (`revoked`, `forgotten` and those two), facts and skills.
 */
export function itemsWithheldGap(reason: WithheldReason, count: number): string {
  return `dispatch_context_items_withheld:${reason}:${count}`;
}

/** `dispatch_context_review_due:<id>`: a delivered fact is past its `reviewBy` (still delivered). */
export function reviewDueGap(itemId: string): string {
  return `dispatch_context_review_due:${itemId}`;
}
