/** The dispatch gap strings of the guide's "Context for Runtime agents" table, exactly. */
export const DISPATCH_GAPS = {
  uncommitted: "dispatch_context_withheld:uncommitted",
  gitUnavailable: "dispatch_context_withheld:git_unavailable",
  revisionDrift: "dispatch_context_withheld:memory_revision_drift",
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
 * `dispatch_context_items_withheld:<reason>:<n>`: n active facts were left out by the hub's rule, `expired`
 * (`expiresAt` reached) or `check_failed` (a failing check whose policy is `withhold`).
 */
export function itemsWithheldGap(reason: "expired" | "check_failed", count: number): string {
  return `dispatch_context_items_withheld:${reason}:${count}`;
}

/** `dispatch_context_review_due:<id>`: a delivered fact is past its `reviewBy` (still delivered). */
export function reviewDueGap(itemId: string): string {
  return `dispatch_context_review_due:${itemId}`;
}
