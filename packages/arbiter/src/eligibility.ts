import type { ContextItem } from "@kxm/contract";

/** Superseded and rejected items are dead: never eligible, never recalled. */
export function isLive(item: ContextItem): boolean {
  return item.status !== "superseded" && item.status !== "rejected";
}

/** Inert items never consume budget: state that is not current, and proposed skills. */
export function isInert(item: ContextItem): boolean {
  return item.kind === "state"
    ? item.status !== "current"
    : item.kind === "skill" && item.status === "proposed";
}
