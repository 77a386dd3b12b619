// @ts-check
// Deterministic pools, tasks and recall queries. Everything is drawn from seeded streams (random.mjs), so the same
// seed gives byte-identical JSON on every run and every machine.
import { AUTHORITIES, compareCodeUnits, LIMITS, ORIGIN_CEILINGS } from "@kxm/contract";
import { parseContextItem } from "@kxm/provenance";
import { Random } from "./random.mjs";
import { MISS_PREFIX, pseudoWord, Vocabulary } from "./vocabulary.mjs";

/** @typedef {import("@kxm/contract").ContextItem} ContextItem */
/** @typedef {import("@kxm/contract").ItemKind} ItemKind */
/** @typedef {import("@kxm/contract").Origin} Origin */
/** @typedef {import("@kxm/contract").Authority} Authority */

export const SEED = 20_260_901;
export const PROJECT = "demo";
const VOCABULARY_SIZE = 4_000;
/** Summaries are 200 to 1,800 characters, uniformly: about 1 KB on average. */
const SUMMARY_MIN = 200;
const SUMMARY_MAX = 1_800;
/** Long tasks are cut at the request limit of 2,000 characters; short tasks have 10 to 14 words. */
const LONG_TASK_WORDS = 400;
/** @type {readonly [number, number]} */
const SHORT_TASK_WORDS = [10, 14];
const SHARED = "_shared";
const YEAR_START = Date.UTC(2025, 0, 1);
const YEAR_SECONDS = 365 * 24 * 3600;
/** One seed, one stream per purpose; the order of the names fixes which stream is which. */
const STREAMS = /** @type {const} */ (["vocabulary", "items", "keys", "tasks", "queries", "edits"]);

/** @type {readonly (readonly [ItemKind, number])[]} */
const KINDS = [
  ["knowledge", 28],
  ["evidence", 34],
  ["state", 16],
  ["episode", 14],
  ["skill", 8],
];
/** @type {Readonly<Record<ItemKind, string>>} */
const KIND_PREFIX = { knowledge: "kn", evidence: "ev", state: "st", episode: "ep", skill: "sk" };
/** @type {readonly (readonly [Origin, number])[]} */
const ORIGINS = [
  ["human", 12],
  ["workflow", 25],
  ["git", 15],
  ["peer", 15],
  ["tool", 18],
  ["external", 7],
  ["derived", 8],
];
/** How often each authority is claimed when the origin allows it. */
const AUTHORITY_WEIGHTS = [20, 30, 35, 15];
/** @type {readonly (readonly [import("@kxm/contract").Confidence, number])[]} */
const CONFIDENCES = [
  ["verified", 25],
  ["probable", 50],
  ["uncertain", 25],
];
/** @type {Readonly<Record<ItemKind, readonly (readonly [import("@kxm/contract").ItemStatus | undefined, number])[]>>} */
const STATUSES = {
  state: [
    ["current", 55],
    ["proposed", 20],
    ["superseded", 20],
    ["rejected", 5],
  ],
  skill: [
    [undefined, 65],
    ["proposed", 30],
    ["superseded", 5],
  ],
  knowledge: [
    [undefined, 92],
    ["superseded", 5],
    ["rejected", 3],
  ],
  evidence: [
    [undefined, 92],
    ["superseded", 5],
    ["rejected", 3],
  ],
  episode: [
    [undefined, 92],
    ["superseded", 5],
    ["rejected", 3],
  ],
};
const TOOLS = ["vitest", "playwright", "tsc", "biome", "eslint", "docker", "terraform", "k6", "lighthouse"];
const PEOPLE = ["alice", "bob", "chen", "dana", "emeka", "farah", "gus", "hana", "ivan", "jo"];
const AGENTS = ["planner", "implementer", "critic", "verifier", "repro"];

/** @param {string} word */
function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** @param {number} seconds */
function timestamp(seconds) {
  return new Date(YEAR_START + seconds * 1000).toISOString().replace(".000Z", "Z");
}

/** Text made of the vocabulary's words: sentences, a little punctuation, and the odd code-like token. */
class TextMaker {
  /**
   * @param {Vocabulary} vocabulary
   * @param {Random} random
   */
  constructor(vocabulary, random) {
    this.vocabulary = vocabulary;
    this.random = random;
  }

  /** A token such as `src/cache/index.ts`, `#4821`, `v2.14.3`, `retry_budget` or `releaseBranch`. */
  codeToken() {
    const r = this.random;
    const a = this.vocabulary.drawContent(r);
    const b = this.vocabulary.drawContent(r);
    switch (r.int(0, 6)) {
      case 0:
        return `src/${a}/${b}.ts`;
      case 1:
        return `#${r.int(10, 9999)}`;
      case 2:
        return `v${r.int(0, 9)}.${r.int(0, 30)}.${r.int(0, 20)}`;
      case 3:
        return `${a}_${b}`;
      case 4:
        return `${a}${capitalize(b)}`;
      case 5:
        return `${a}.${b}`;
      default:
        return `\`${a}()\``;
    }
  }

  /** One word of running text. */
  word() {
    return this.random.chance(30) ? this.codeToken() : this.vocabulary.draw(this.random);
  }

  /**
   * A sentence of `count` words.
   * @param {number} count
   */
  sentence(count) {
    const r = this.random;
    const parts = [];
    // A dash in one sentence of 25 or so: enough for some summaries to be non-ASCII, as written text is.
    const dashAt = count > 5 && r.chance(40) ? r.int(2, count - 3) : -1;
    for (let i = 0; i < count; i += 1) {
      let word = this.word();
      if (i === 0) word = capitalize(word);
      if (i < count - 1 && r.chance(70)) word += ",";
      parts.push(word);
      if (i === dashAt) parts.push("—");
    }
    return `${parts.join(" ")}${r.pick([".", ".", ".", ".", ":", "?", "!"])}`;
  }

  /**
   * Sentences until a length drawn in [min, max] is reached, cut back to at most `max` characters.
   * @param {number} min
   * @param {number} max
   */
  chars(min, max) {
    const target = this.random.int(min, max);
    let text = "";
    while (text.length < target) {
      const sentence = this.sentence(this.random.int(5, 16));
      text = text === "" ? sentence : `${text} ${sentence}`;
    }
    if (text.length > max)
      text = `${text.slice(0, text.lastIndexOf(" ", max - 1)).replace(/[,:;—\s]+$/u, "")}.`;
    return text;
  }

  /**
   * Exactly `count` words in sentences, cut back to `maxChars` characters at a word boundary.
   * @param {number} count
   * @param {number} maxChars
   */
  words(count, maxChars) {
    const sentences = [];
    let left = count;
    while (left > 0) {
      const n = Math.min(left, this.random.int(5, 16));
      sentences.push(this.sentence(n));
      left -= n;
    }
    const text = sentences.join(" ");
    return text.length <= maxChars ? text : text.slice(0, text.lastIndexOf(" ", maxChars));
  }
}

/**
 * The pool of `size` items. Items are made one after another from one stream, so the first 1,000 items of the
 * 10,000 pool are the 1,000 pool.
 * @param {number} size
 * @param {number} [seed]
 * @returns {ContextItem[]}
 */
export function generatePool(size, seed = SEED) {
  const streams = Random.streams(seed, STREAMS);
  const vocabulary = new Vocabulary(streams.vocabulary, VOCABULARY_SIZE);
  const r = streams.items;
  const text = new TextMaker(vocabulary, r);
  // State keys such as `release.branch`: about one per 25 items, so several records share each key.
  const stateKeys = [];
  const keyCount = Math.max(16, Math.ceil(size / 25));
  const seenKeys = new Set();
  while (stateKeys.length < keyCount) {
    const key = `${vocabulary.drawContent(streams.keys)}.${vocabulary.drawContent(streams.keys)}`;
    if (!seenKeys.has(key)) {
      seenKeys.add(key);
      stateKeys.push(key);
    }
  }
  /** @type {ContextItem[]} */
  const items = [];
  /** @type {string[]} */
  const evidenceIds = [];
  for (let i = 0; i < size; i += 1) {
    const item = makeItem(i, r, text, vocabulary, stateKeys, items, evidenceIds);
    items.push(item);
    if (item.kind === "evidence") evidenceIds.push(item.id);
  }
  return items;
}

/**
 * @param {number} i
 * @param {Random} r
 * @param {TextMaker} text
 * @param {Vocabulary} vocabulary
 * @param {readonly string[]} stateKeys
 * @param {readonly ContextItem[]} earlier
 * @param {readonly string[]} evidenceIds
 * @returns {ContextItem}
 */
function makeItem(i, r, text, vocabulary, stateKeys, earlier, evidenceIds) {
  const kind = r.weighted(KINDS);
  let origin = r.weighted(ORIGINS);
  if (origin === "derived" && earlier.length === 0) origin = "tool";
  const status = r.weighted(STATUSES[kind]);
  const project = r.chance(100) ? SHARED : PROJECT;
  const journal = origin === "workflow" && (kind === "knowledge" || kind === "evidence") && r.chance(500);
  const suffix = i.toString(36).padStart(4, "0");
  const id = journal
    ? `journal_${r.int(0, 0xffffff).toString(16).padStart(6, "0")}${suffix}`
    : `${KIND_PREFIX[kind]}-${r
        .int(0, 36 ** 4 - 1)
        .toString(36)
        .padStart(4, "0")}${suffix}`;

  /** @type {string[] | undefined} */
  let derivedFrom;
  let ceiling = AUTHORITIES.indexOf(ORIGIN_CEILINGS[origin]);
  if (origin === "derived") {
    const ancestors = new Set();
    const count = Math.min(earlier.length, r.int(1, 3));
    while (ancestors.size < count) ancestors.add(r.pick(earlier));
    const strongest = Math.min(...[...ancestors].map((a) => AUTHORITIES.indexOf(a.authority)));
    ceiling = Math.max(ceiling, strongest);
    derivedFrom = [...ancestors].map((a) => a.id).sort(compareCodeUnits);
  }
  /** @type {readonly (readonly [Authority, number])[]} */
  const authorities = AUTHORITIES.slice(ceiling).map((a, k) => [
    a,
    /** @type {number} */ (AUTHORITY_WEIGHTS[ceiling + k]),
  ]);
  const authority = journal ? "evidence" : r.weighted(authorities);
  const confidence = journal || origin === "derived" ? "probable" : r.weighted(CONFIDENCES);

  const summary = text.chars(SUMMARY_MIN, SUMMARY_MAX);
  const sourceRef = journal
    ? `journal:${id.slice("journal_".length)}`
    : r.chance(850)
      ? makeSourceRef(origin, r, vocabulary, derivedFrom)
      : undefined;

  /** @type {ContextItem} */
  const item = {
    id,
    kind,
    project,
    summary,
    provenance: {
      sourceType: origin,
      ...(sourceRef === undefined ? {} : { sourceRef }),
      ...(derivedFrom === undefined ? {} : { derivedFrom }),
    },
    authority,
    confidence,
  };
  if (status !== undefined) item.status = status;
  if (kind === "state") item.stateKey = r.pick(stateKeys);
  if (r.chance(100)) item.scope = `packages/${vocabulary.drawContent(r)}`;
  const start = r.int(0, YEAR_SECONDS - 1);
  const hasObserved = kind === "state" ? r.chance(500) : journal || r.chance(900);
  const hasValidFrom = kind === "state" || r.chance(150);
  if (hasObserved)
    item.observedAt = timestamp(hasValidFrom ? Math.min(YEAR_SECONDS - 1, start + r.int(0, 86_400)) : start);
  if (hasValidFrom) item.validFrom = timestamp(start);
  if (status === "superseded" && hasValidFrom) item.validUntil = timestamp(start + r.int(3600, 60 * 86_400));
  if (kind === "state" && evidenceIds.length > 0) {
    const refs = new Set();
    const count = Math.min(evidenceIds.length, r.int(1, 3));
    while (refs.size < count) refs.add(r.pick(evidenceIds));
    item.evidenceRefs = [...refs].sort();
  }
  return item;
}

/**
 * @param {Origin} origin
 * @param {Random} r
 * @param {Vocabulary} vocabulary
 * @param {readonly string[] | undefined} derivedFrom
 */
function makeSourceRef(origin, r, vocabulary, derivedFrom) {
  const a = vocabulary.drawContent(r);
  const b = vocabulary.drawContent(r);
  switch (origin) {
    case "human":
      return r.chance(500) ? `human:${r.pick(PEOPLE)}` : `docs/${a}-${b}.md`;
    case "workflow":
      return `run:${r.int(1, 99_999)}/${r.pick(AGENTS)}`;
    case "git":
      return `git:${r.int(0, 0xfffffff).toString(16).padStart(7, "0")}:src/${a}/${b}.ts`;
    case "peer":
      return `peer:${r.pick(AGENTS)}-${r.int(1, 40)}`;
    case "tool":
      return `tool:${r.pick(TOOLS)}#${r.int(1, 99_999)}`;
    case "external":
      return `https://${a}.example.com/${b}/${r.int(1, 9999)}`;
    default:
      return `derived:${derivedFrom?.[0] ?? a}`;
  }
}

/**
 * A replacement for an item, as an edit would produce: same id, kind, project and provenance, a rewritten
 * summary and a later observation time.
 * @param {ContextItem} item
 * @param {Random} r
 * @param {TextMaker} text
 * @returns {ContextItem}
 */
function variantOf(item, r, text) {
  return {
    ...item,
    summary: text.chars(SUMMARY_MIN, SUMMARY_MAX),
    observedAt: timestamp(r.int(0, YEAR_SECONDS - 1)),
  };
}

/**
 * `count` edits of distinct items of the pool, for the one-item update figure.
 * @param {readonly ContextItem[]} items
 * @param {number} count
 * @param {number} [seed]
 * @returns {{ originals: ContextItem[], variants: ContextItem[] }}
 */
export function generateEdits(items, count, seed = SEED) {
  const streams = Random.streams(seed, STREAMS);
  const vocabulary = new Vocabulary(streams.vocabulary, VOCABULARY_SIZE);
  const r = streams.edits;
  const text = new TextMaker(vocabulary, r);
  const picked = new Set();
  const wanted = Math.min(count, items.length);
  while (picked.size < wanted) picked.add(r.int(0, items.length - 1));
  const originals = [...picked].map((i) => /** @type {ContextItem} */ (items[i]));
  return { originals, variants: originals.map((item) => variantOf(item, r, text)) };
}

/**
 * The task sets, the same for every pool size: long tasks of about 2,000 characters (a pasted issue or plan, cut
 * at the request limit at a word boundary) and short tasks of about 12 words (a one-line ask).
 * @param {number} count tasks of each kind
 * @param {number} [seed]
 * @returns {{ long: string[], short: string[] }}
 */
export function generateTasks(count, seed = SEED) {
  const streams = Random.streams(seed, STREAMS);
  const vocabulary = new Vocabulary(streams.vocabulary, VOCABULARY_SIZE);
  const r = streams.tasks;
  const text = new TextMaker(vocabulary, r);
  const long = [];
  const short = [];
  for (let i = 0; i < count; i += 1) {
    long.push(text.words(LONG_TASK_WORDS, LIMITS.taskChars));
    short.push(text.words(r.int(SHORT_TASK_WORDS[0], SHORT_TASK_WORDS[1]), LIMITS.taskChars));
  }
  return { long, short };
}

/** @typedef {{ query: string, type: "words" | "phrase" | "substring" | "miss" }} RecallQuery */

/**
 * Recall queries for a pool: 1 to 4 content words; phrases of 2 or 3 words cut from a summary of the pool (so
 * they exist as substrings); substrings of 4 to 8 characters from inside a word of a summary; and misses, words
 * that no item holds.
 * @param {readonly ContextItem[]} items
 * @param {number} count
 * @param {number} [seed]
 * @returns {RecallQuery[]}
 */
export function generateQueries(items, count, seed = SEED) {
  const streams = Random.streams(seed, STREAMS);
  const vocabulary = new Vocabulary(streams.vocabulary, VOCABULARY_SIZE);
  const r = streams.queries;
  const recallable = items.filter(
    (item) => item.kind !== "skill" && item.status !== "superseded" && item.status !== "rejected",
  );
  /** @type {RecallQuery[]} */
  const queries = [];
  for (let i = 0; i < count; i += 1) {
    const type = r.weighted([
      [/** @type {const} */ ("words"), 45],
      [/** @type {const} */ ("phrase"), 25],
      [/** @type {const} */ ("substring"), 15],
      [/** @type {const} */ ("miss"), 15],
    ]);
    if (type === "words" || recallable.length === 0) {
      const words = [];
      for (let n = r.int(1, 4); n > 0; n -= 1) words.push(vocabulary.drawContent(r));
      queries.push({ query: words.join(" "), type: "words" });
    } else if (type === "substring") {
      // 4 to 8 characters from inside one word of a summary: found by a substring scan, not by any token.
      const words = r
        .pick(recallable)
        .summary.split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word.length >= 6);
      const word = words.length === 0 ? "retry" : r.pick(words);
      const length = Math.min(word.length - 2, r.int(4, 8));
      const start = r.int(1, word.length - length - 1);
      queries.push({ query: word.slice(start, start + length).toLowerCase(), type: "substring" });
    } else if (type === "phrase") {
      const summaryWords = r.pick(recallable).summary.split(" ");
      const length = Math.min(summaryWords.length, r.int(2, 3));
      const start = r.int(0, summaryWords.length - length);
      const phrase = summaryWords
        .slice(start, start + length)
        .join(" ")
        .replace(/[.,:?!]+$/u, "");
      queries.push({ query: phrase, type: "phrase" });
    } else {
      const words = [];
      for (let n = r.int(1, 2); n > 0; n -= 1) words.push(MISS_PREFIX + pseudoWord(r));
      queries.push({ query: words.join(" "), type: "miss" });
    }
  }
  return queries;
}

/**
 * Checks that every generated item is what the documented admission path (`parseContextItem`: the schema, the
 * origin ceilings, the lifecycle rules, redaction, the canonical form) makes of it, so the pool is one a hub could
 * hold; throws on the first item it refuses or changes.
 * @param {readonly ContextItem[]} items
 */
export function checkItems(items) {
  const ids = new Set();
  for (const item of items) {
    let admitted;
    try {
      admitted = parseContextItem(item);
    } catch (error) {
      throw new Error(
        `generated item ${item.id} is refused at admission: ${/** @type {Error} */ (error).message}`,
      );
    }
    if (JSON.stringify(admitted) !== JSON.stringify(item)) {
      throw new Error(`generated item ${item.id} is not in its admitted form`);
    }
    if (ids.has(item.id)) throw new Error(`duplicate id ${item.id}`);
    ids.add(item.id);
  }
}
