import { compareCodeUnits } from "@kxm/contract";
import type { ChangeBatch } from "../types.js";

/**
 * The records a batch's `items` and `journal` changes name, per project, for the projects a reader holds (both
 * engines read exactly these in a catch-up's snapshot). Ids sorted and distinct.
 */
export function namedRecords(
  batch: ChangeBatch,
  projects: readonly string[],
): Map<string, { items: string[]; entries: string[] }> {
  const asked = new Set(projects);
  const named = new Map<string, { items: Set<string>; entries: Set<string> }>();
  for (const change of batch.changes) {
    if (!asked.has(change.project) || (change.kind !== "items" && change.kind !== "journal")) continue;
    let ids = named.get(change.project);
    if (ids === undefined) {
      ids = { items: new Set(), entries: new Set() };
      named.set(change.project, ids);
    }
    for (const id of change.ids) (change.kind === "items" ? ids.items : ids.entries).add(id);
  }
  const sorted = (ids: Set<string>) => [...ids].sort(compareCodeUnits);
  return new Map(
    [...named].map(([project, ids]) => [project, { items: sorted(ids.items), entries: sorted(ids.entries) }]),
  );
}
