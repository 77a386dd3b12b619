// The temporal-state.md page: every retained value of each state key, current first, with its validity window.
import { compareCodeUnits } from "@kxm/contract";
import { claim, stateDetails, successorsOf } from "../claims.js";
import { PAGES } from "../layout.js";
import { code } from "../markdown.js";
import { finish, header, list } from "../page-frame.js";
import type { Prepared } from "../prepared.js";

export function temporalStatePage(prepared: Prepared): string {
  const page = PAGES.temporalState;
  const out = header(
    prepared,
    "Temporal state",
    "Every retained value of each state key, with its validity window: from `validFrom` up to, not including, " +
      "`validUntil`. Superseded values stay visible here until retention purges them.",
  );
  const keys = [...new Set(prepared.state.map((item) => item.stateKey ?? ""))].sort(compareCodeUnits);
  if (keys.length === 0) out.push("_No state value has been promoted yet._", "");
  const contested = new Set(prepared.contradictions.state.map((entry) => entry.stateKey));
  for (const key of keys) {
    const values = prepared.state.filter((item) => item.stateKey === key);
    const current = values.filter((item) => item.status === "current");
    const superseded = values
      .filter((item) => item.status === "superseded")
      .sort(
        (a, b) => compareCodeUnits(b.validUntil ?? "", a.validUntil ?? "") || compareCodeUnits(a.id, b.id),
      );
    out.push(`## Key ${code(key)}`, "");
    if (contested.has(key)) {
      out.push(
        `> [!WARNING]`,
        `> This key has an open contradiction; see [Contradictions](${PAGES.contradictions}). It is not resolved here.`,
        "",
      );
    }
    out.push(
      "### Current",
      "",
      ...list(
        current.map((item) =>
          claim(prepared, page, item.id, item.summary, stateDetails(item, [], prepared, page), "current"),
        ),
        "No current value.",
      ),
    );
    if (superseded.length > 0) {
      out.push(
        "### Superseded",
        "",
        ...list(
          superseded.map((item) =>
            claim(
              prepared,
              page,
              item.id,
              item.summary,
              stateDetails(item, successorsOf(item, values), prepared, page),
              "superseded",
            ),
          ),
          "",
        ),
      );
    }
  }
  return finish(out);
}
