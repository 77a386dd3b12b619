// @ts-check
// The Cranfield collection (1,400 aeronautics abstracts, 225 queries, graded judgments) and the measures taken on
// it: nDCG@10 with linear gain and recall@100, under both readings of the disputed judgment code -1, and a paired
// bootstrap interval of the difference between two systems.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LIMITS } from "@kxm/contract";
import { Random } from "./random.mjs";

/** Where the collection sits: `KXM_CRANFIELD_DIR`, or the copy kept with the bench in `data/cranfield`. */
function cranfieldDir() {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(process.env.KXM_CRANFIELD_DIR ?? join(here, "..", "data", "cranfield"));
}

/**
 * Why the collection at `dir` cannot be used, or undefined: a file missing, or not 1,400 documents, 225 queries
 * and judgments for them. Checked before the first measurement, so a run never fails after minutes of work.
 * @param {string} [dir]
 */
export function cranfieldInputsMissing(dir = cranfieldDir()) {
  for (const file of ["cran.all.1400", "cran.qry", "cranqrel"]) {
    if (!existsSync(join(dir, file))) return `${join(dir, file)} is missing (set KXM_CRANFIELD_DIR)`;
  }
  const { docs, queries, judgments } = loadCranfield(dir);
  if (docs.length !== 1_400 || queries.length !== 225 || judgments.size !== 225) {
    return `${dir} holds ${docs.length} documents, ${queries.length} queries and judgments for ${judgments.size}, not Cranfield's 1,400, 225 and 225`;
  }
  return undefined;
}

/**
 * Splits a SMART-format file into records: each starts `.I <n>`, then fields `.X` on their own line.
 * @param {string} text
 * @returns {{ number: number, fields: Record<string, string> }[]}
 */
function smartRecords(text) {
  const records = [];
  for (const chunk of text.split(/^\.I\s+/m).slice(1)) {
    const [head = "", ...lines] = chunk.split("\n");
    /** @type {Record<string, string[]>} */
    const fields = {};
    let field = "";
    for (const line of lines) {
      const marker = /^\.([A-Z])\s*$/.exec(line);
      if (marker) {
        field = /** @type {string} */ (marker[1]);
        fields[field] = [];
      } else if (field !== "") fields[field]?.push(line.trim());
    }
    records.push({
      number: Number(head.trim()),
      fields: Object.fromEntries(
        Object.entries(fields).map(([key, value]) => [key, value.join(" ").replace(/\s+/g, " ").trim()]),
      ),
    });
  }
  return records;
}

/**
 * A document's text as every system gets it: a KXM summary holds 1 to 4,000 characters, so the three longest
 * abstracts are cut at the last space before 4,000 and the two empty documents become "-" (no token).
 * @param {string} text
 */
function itemText(text) {
  const trimmed = text.trim();
  if (trimmed === "") return "-";
  return trimmed.length <= LIMITS.summaryChars
    ? trimmed
    : trimmed.slice(0, trimmed.lastIndexOf(" ", LIMITS.summaryChars));
}

/** A document id that sorts by code unit in document order (KXM breaks score ties by id). */
const docId = (/** @type {number} */ n) => `cran-${String(n).padStart(4, "0")}`;

/**
 * @typedef {object} Cranfield
 * @property {{ id: string, text: string, fields: { title: string, abstract: string } }[]} docs text = title + " " +
 *   abstract (a KXM summary); `fields` holds the same text cut into title and abstract, for peers that index fields
 * @property {{ id: number, text: string }[]} queries ids 1 to 225 in file order (the `.I` numbers are not the ids)
 * @property {Map<number, Map<string, number>>} judgments query id -> doc id -> code (1 to 4, or -1)
 */

/** @param {string} [dir] @returns {Cranfield} */
export function loadCranfield(dir = cranfieldDir()) {
  const docs = smartRecords(readFileSync(join(dir, "cran.all.1400"), "utf8")).map(({ number, fields }) => {
    const title = fields.T ?? "";
    const text = itemText(`${title} ${fields.W ?? ""}`);
    // The fields hold exactly the summary's words: the title, and what the summary keeps after it.
    const abstract = text.startsWith(title) ? text.slice(title.length).trim() : text;
    return {
      id: docId(number),
      text,
      fields: { title: text.startsWith(title) ? title : "", abstract },
    };
  });
  // Trap one: the judgments number the queries 1 to 225 in file order, not by their `.I` numbers.
  const queries = smartRecords(readFileSync(join(dir, "cran.qry"), "utf8")).map(({ fields }, i) => ({
    id: i + 1,
    text: fields.W ?? "",
  }));
  /** @type {Map<number, Map<string, number>>} */
  const judgments = new Map();
  for (const line of readFileSync(join(dir, "cranqrel"), "utf8").split("\n")) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 3) continue;
    const [query, doc, code] = parts.map(Number);
    if (!judgments.has(/** @type {number} */ (query)))
      judgments.set(/** @type {number} */ (query), new Map());
    judgments
      .get(/** @type {number} */ (query))
      ?.set(docId(/** @type {number} */ (doc)), /** @type {number} */ (code));
  }
  return { docs, queries, judgments };
}

/**
 * Trap two: code -1 is disputed. "strict" drops it; "generous" reads it as most relevant (as code 1). Codes 1 to 4
 * get linear gains 4 to 1.
 * @typedef {"generous" | "strict"} Reading
 */
export const READINGS = /** @type {const} */ (["generous", "strict"]);

/** @param {number} code @param {Reading} reading */
function gain(code, reading) {
  if (code === -1) return reading === "generous" ? 4 : 0;
  return code >= 1 && code <= 4 ? 5 - code : 0;
}

/**
 * nDCG@k (linear gain, log2 discount) of one ranking; 0 when the query has no relevant document.
 * @param {readonly string[]} ranking
 * @param {Map<string, number> | undefined} judged
 * @param {Reading} reading
 */
function ndcgAt(ranking, judged, reading, k = 10) {
  const gains = [...(judged ?? new Map()).values()].map((code) => gain(code, reading)).filter((g) => g > 0);
  if (gains.length === 0) return 0;
  const ideal = gains
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    dcg += gain(judged?.get(id) ?? 0, reading) / Math.log2(i + 2);
  });
  return dcg / ideal;
}

/**
 * Recall@k: the share of the relevant documents found in the first k; 0 when there are none.
 * @param {readonly string[]} ranking
 * @param {Map<string, number> | undefined} judged
 * @param {Reading} reading
 */
function recallAt(ranking, judged, reading, k = 100) {
  const relevant = [...(judged ?? new Map())].filter(([, code]) => gain(code, reading) > 0);
  if (relevant.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter(([id]) => top.has(id)).length / relevant.length;
}

/**
 * Per-query measures of a system's rankings (one per query, in query order).
 * @param {Cranfield} cranfield
 * @param {readonly (readonly string[])[]} rankings
 */
export function evaluate(cranfield, rankings) {
  /** @type {Record<string, { ndcg10: number[], recall100: number[] }>} */
  const perQuery = {};
  for (const reading of READINGS) {
    perQuery[reading] = {
      ndcg10: cranfield.queries.map((q, i) =>
        ndcgAt(rankings[i] ?? [], cranfield.judgments.get(q.id), reading),
      ),
      recall100: cranfield.queries.map((q, i) =>
        recallAt(rankings[i] ?? [], cranfield.judgments.get(q.id), reading),
      ),
    };
  }
  return perQuery;
}

/** @param {readonly number[]} values */
export const mean = (values) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/**
 * A paired bootstrap 95% interval of mean(a) - mean(b) over the same queries: resample the queries with
 * replacement (seeded), take the mean difference each time, report the 2.5th and 97.5th percentiles.
 * @param {readonly number[]} a
 * @param {readonly number[]} b
 */
export function pairedBootstrap(a, b, samples = 10_000, seed = 20_260_901) {
  const r = Random.seeded(seed);
  const n = a.length;
  const diffs = a.map((value, i) => value - /** @type {number} */ (b[i]));
  const means = new Float64Array(samples);
  for (let s = 0; s < samples; s += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += /** @type {number} */ (diffs[r.int(0, n - 1)]);
    means[s] = sum / n;
  }
  means.sort();
  return {
    difference: mean(diffs),
    low: /** @type {number} */ (means[Math.floor(0.025 * samples)]),
    high: /** @type {number} */ (means[Math.ceil(0.975 * samples) - 1]),
  };
}
