// The superseded-history.md page: every retained superseded value, oldest supersession first.
import { compareCodeUnits } from "@kxm/contract";
import { claim, stateDetails, successorsOf } from "../claims.js";
import { PAGES } from "../layout.js";
import { finish, header, list } from "../page-frame.js";
import type { Prepared } from "../prepared.js";

export function supersededHistoryPage(prepared: Prepared): string {
  const page = PAGES.supersededHistory;
  const out = header(
    prepared,
    "Superseded history",
    "Every retained superseded value, oldest supersession first: when it stopped being current, what it said and " +
      `what replaced it. The full history of each key is on [Temporal state](${PAGES.temporalState}).`,
  );
  const superseded = prepared.state
    .filter((item) => item.status === "superseded")
    .sort((a, b) => compareCodeUnits(a.validUntil ?? "", b.validUntil ?? "") || compareCodeUnits(a.id, b.id));
  out.push(
    ...list(
      superseded.map((item) => {
        const successors = successorsOf(
          item,
          prepared.state.filter((other) => other.stateKey === item.stateKey),
        );
        return claim(
          prepared,
          page,
          item.id,
          item.summary,
          [`ended ${item.validUntil ?? "(unknown)"}`, ...stateDetails(item, successors, prepared, page)],
          "superseded",
        );
      }),
      "No value has been superseded (or retention purged every superseded value).",
    ),
  );
  return finish(out);
}
