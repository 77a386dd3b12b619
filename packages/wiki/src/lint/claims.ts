// The claim rules: a claim of an unknown or purged record (broken_reference), a stale current claim, a record no page claims.
import { compareCodeUnits } from "@kxm/contract";
import { CLAIM_STATUSES, type ClaimStatus, PAGES } from "../layout.js";
import { type Finding, finding } from "./findings.js";
import { claimsOf } from "./scan.js";

/**
 * `broken_reference` for a claim with an unknown status or of a record not among `statuses`; `stale_state_link`
 * for a claim of `current` the hub holds otherwise; `missing_record` for a record of `statuses` no page claims.
 */
export function checkClaims(
  pages: ReadonlyMap<string, string>,
  statuses: ReadonlyMap<string, string>,
): Finding[] {
  const findings: Finding[] = [];
  const claimed = new Set<string>();
  for (const { page, line, id, status } of claimsOf(pages)) {
    claimed.add(id);
    const actual = statuses.get(id);
    if (!(CLAIM_STATUSES as readonly string[]).includes(status)) {
      findings.push(
        finding("broken_reference", page, `claims ${id} with an unknown status ${status}`, { line, id }),
      );
    } else if (actual === undefined) {
      findings.push(
        finding(
          "broken_reference",
          page,
          `claims ${id}, which is not among the project's reviewed records (purged, or never reviewed)`,
          { line, id },
        ),
      );
    } else if ((status as ClaimStatus) === "current" && actual !== "current") {
      findings.push(
        finding("stale_state_link", page, `claims ${id} is current, but the hub holds it as ${actual}`, {
          line,
          id,
        }),
      );
    }
  }
  for (const id of [...statuses.keys()].sort(compareCodeUnits)) {
    if (!claimed.has(id)) {
      findings.push(
        finding(
          "missing_record",
          PAGES.index,
          `reviewed record ${id} is on no page: compile the wiki again`,
          {
            id,
          },
        ),
      );
    }
  }
  return findings;
}
