// The contradiction rules: an open contradiction contradictions.md hides, and one it shows that is no longer open.
import { compareCodeUnits, type WikiRecords } from "@kxm/contract";
import { PAGES } from "../layout.js";
import { type Finding, finding } from "./findings.js";
import { contradictionsOn } from "./scan.js";

function contradictionKey(id: string, stateKey: string | undefined): string {
  return stateKey === undefined ? id : `${id}\u0000${stateKey}`;
}

function splitContradictionKey(key: string): [string, string | undefined] {
  const at = key.indexOf("\u0000");
  return at < 0 ? [key, undefined] : [key.slice(0, at), key.slice(at + 1)];
}

/** `hidden_contradiction` and `stale_contradiction` on contradictions.md; nothing when that page is missing. */
export function checkContradictions(pages: ReadonlyMap<string, string>, records: WikiRecords): Finding[] {
  const body = pages.get(PAGES.contradictions);
  if (body === undefined) return [];
  const findings: Finding[] = [];
  const shown = new Set(
    contradictionsOn(PAGES.contradictions, body).map((marker) => contradictionKey(marker.id, marker.key)),
  );
  const open = new Set<string>();
  for (const entry of records.contradictions.state) {
    for (const id of entry.itemIds) open.add(contradictionKey(id, entry.stateKey));
  }
  for (const id of records.contradictions.journal) open.add(contradictionKey(id, undefined));
  for (const key of [...open].sort(compareCodeUnits)) {
    if (!shown.has(key)) {
      const [id, stateKey] = splitContradictionKey(key);
      findings.push(
        finding(
          "hidden_contradiction",
          PAGES.contradictions,
          stateKey === undefined
            ? `the open contradiction of journal item ${id} is not shown`
            : `the open contradiction on key ${stateKey} (item ${id}) is not shown`,
          { id },
        ),
      );
    }
  }
  for (const key of [...shown].sort(compareCodeUnits)) {
    if (!open.has(key)) {
      const [id] = splitContradictionKey(key);
      findings.push(
        finding(
          "stale_contradiction",
          PAGES.contradictions,
          `shows a contradiction of ${id} that is no longer open`,
          {
            id,
          },
        ),
      );
    }
  }
  return findings;
}
