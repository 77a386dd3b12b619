import type { WithheldReason } from "@kxm/contract";
import type { WithheldCounts } from "@kxm/memory-git";
import { Flags } from "@oclif/core";
import { connectHub, count, hubFlag, hubNamed } from "./hub-client.js";

// What `kxm memory brief` and `kxm memory sync` ask a hub, when one is named: the authored items it withholds
// (decision 0017), so a revoked or forgotten fact reaches no instruction file and no session. Without a named hub
// they read the work tree alone, as before.

/** `--hub` and `--project`, for the memory commands that leave out what a hub withholds. */
export const withheldFlags = {
  hub: hubFlag,
  project: Flags.string({
    description: "The project the hub is asked about (default: the root folder's name, as kxm run uses)",
  }),
};

/**
 * The authored items the named hub withholds for `project`, id to reason; undefined without a named hub. A hub that
 * cannot be reached or refuses fails the command (nothing is printed or written), with the hub's error.
 */
export async function hubWithheld(
  hub: string | undefined,
  project: string,
): Promise<ReadonlyMap<string, WithheldReason> | undefined> {
  if (!hubNamed(hub)) return undefined;
  const { items } = await connectHub(hub).client.listWithheld({ params: { project } });
  return new Map(items.map(({ id, reason }) => [id, reason]));
}

/** `Left out 2 facts the hub withholds: 1 revoked, 1 forgotten`, or undefined when none was left out. */
export function withheldLine(counts: WithheldCounts): string | undefined {
  const entries = Object.entries(counts);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return undefined;
  return `Left out ${count(total, "fact")} the hub withholds: ${entries.map(([reason, n]) => `${n} ${reason}`).join(", ")}`;
}
