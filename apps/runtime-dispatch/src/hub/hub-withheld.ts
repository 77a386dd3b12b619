import type { WithheldReason } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { HUB_TIMEOUT_MS, type HubReportTarget } from "./hub-report.js";

// What the run's hub withholds of the project's authored memory and skills (decision 0017): revoked, forgotten,
// expired or failing their check there. Dispatch asks before each step attempt, so a revocation made while a run
// goes on reaches its next step: the run pins the memory revision, but not the hub's rules.

/** The authored items (`mem_…`, `skill_…`) a hub withholds, by id, with the reason. */
export type WithheldAuthored = ReadonlyMap<string, WithheldReason>;

/**
 * Asks a hub which authored items of `project` it withholds; rejects when the hub cannot be reached or answers an
 * error (dispatch then serves no authored item: dispatch-context.ts).
 */
export type WithheldLookup = (project: string) => Promise<WithheldAuthored>;

/** A lookup of the withheld authored items on the hub at `target`, through the contract's client only. */
export function hubWithheld(target: HubReportTarget): WithheldLookup {
  const client = createHubClient({
    baseUrl: target.url,
    timeoutMs: HUB_TIMEOUT_MS,
    ...(target.token === undefined ? {} : { token: target.token }),
    ...(target.fetch === undefined ? {} : { fetch: target.fetch }),
  });
  return async (project) => {
    const { items } = await client.listWithheld({ params: { project } });
    return new Map(items.map(({ id, reason }) => [id, reason]));
  };
}
