// Items the hub keeps out of packets and recall by a rule below the arbiter, and the gaps that count them.
import type { ContextItem } from "@kxm/contract";

/** Why an item is withheld, in precedence order: when several apply, the first wins. */
const WITHHELD_REASONS = ["revoked", "forgotten", "expired", "check_failed"] as const;
export type WithheldReason = (typeof WITHHELD_REASONS)[number];

/** One withheld item and why. */
export interface WithheldItem {
  readonly item: ContextItem;
  readonly reason: WithheldReason;
}

/** The reason that wins between two: the earlier in {@link WITHHELD_REASONS}. */
export function strongerReason(a: WithheldReason, b: WithheldReason): WithheldReason {
  return WITHHELD_REASONS.indexOf(a) <= WITHHELD_REASONS.indexOf(b) ? a : b;
}

/** `items_withheld:<reason>:<count>` per reason with a non-zero count, in reason order. */
export function withheldGaps(withheld: Iterable<{ readonly reason: WithheldReason }>): string[] {
  const counts = new Map<WithheldReason, number>();
  for (const { reason } of withheld) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return WITHHELD_REASONS.filter((reason) => (counts.get(reason) ?? 0) > 0).map(
    (reason) => `items_withheld:${reason}:${counts.get(reason)}`,
  );
}
