// @ts-check
// The Cranfield section: each system's measures, KXM against the best peer per reading, and wink's equality line.
import { ms, table, three } from "./format.mjs";
import { labelOf } from "./labels.mjs";

/** @param {ReturnType<typeof import("./cranfield-summary.mjs").cranfieldSummary>} c */
export function cranfieldReport(c) {
  const lines = [
    table(
      [
        "system",
        "nDCG@10 (-1 relevant)",
        "nDCG@10 (-1 dropped)",
        "recall@100 (-1 relevant)",
        "recall@100 (-1 dropped)",
        "build ms",
        "225 queries ms",
      ],
      c.rows.map((r) => [
        labelOf(r.system),
        three(r.ndcg10.generous ?? 0),
        three(r.ndcg10.strict ?? 0),
        three(r.recall100.generous ?? 0),
        three(r.recall100.strict ?? 0),
        ms(r.buildMs),
        ms(r.queryMs),
      ]),
      ["l", "r", "r", "r", "r", "r", "r"],
    ),
    "",
  ];
  for (const [reading, v] of Object.entries(c.versusBest)) {
    lines.push(
      `- ${reading === "generous" ? "-1 read as most relevant" : "-1 dropped"}: KXM nDCG@10 ${three(v.kxm)}, best peer ` +
        `${labelOf(v.peer)} ${three(v.best)}; KXM − best ${v.difference >= 0 ? "+" : ""}${three(v.difference)}, ` +
        `paired bootstrap 95% interval [${three(v.low)}, ${three(v.high)}] (10,000 resamples of the 225 queries)`,
    );
    if (v.english !== undefined) {
      const e = v.english;
      lines.push(
        `- ${reading === "generous" ? "-1 read as most relevant" : "-1 dropped"}, english analysis: KXM nDCG@10 ` +
          `${three(e.kxm)}; KXM − best ${e.difference >= 0 ? "+" : ""}${three(e.difference)}, paired bootstrap 95% ` +
          `interval [${three(e.low)}, ${three(e.high)}]`,
      );
    }
  }
  lines.push(
    c.winkEqual.compared
      ? `- wink-bm25 fed KXM's tokenizer and BM25 parameters: ${c.winkEqual.holds ? "same" : "DIFFERENT"} nDCG@10 and recall@100 on every query (largest difference ${c.winkEqual.largestDifference})`
      : "- wink-bm25 fed KXM's tokenizer was not run: no equality check",
  );
  return lines.join("\n");
}
