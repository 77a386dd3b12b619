import { KxmError, LIMITS } from "@kxm/contract";
import { stem } from "porter2";

/** The fixed English stopword list of docs/reference/behaviour.md section 1 (60 words). */
// biome-ignore format: one word a line would make the list 60 lines long
export const STOPWORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do", "does", "for",
  "from", "had", "has", "have", "how", "if", "in", "into", "is", "it", "its", "of", "on", "or", "our", "should",
  "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was",
  "we", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would", "you", "your",
]);

const SEPARATORS = /[^\p{L}\p{N}]+/u;
// NFKC leaves pure ASCII unchanged, so the costly normalization is skipped for it. In lowercased text the ASCII
// letters and numbers are exactly a-z and 0-9, so text is first split on runs of ASCII characters other than those
// (a plain class, several times faster over a whole text than Unicode properties), and only the pieces that hold a
// non-ASCII character are split again on SEPARATORS: the two splits cut exactly where SEPARATORS alone would.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the whole ASCII block on purpose
const ASCII = /^[\x00-\x7f]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the whole ASCII block on purpose
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_SEPARATORS = /[^a-z0-9\u0080-\uffff]+/;

/**
 * Folds a plural to its singular by the first rule that applies (docs/reference/behaviour.md section 1, step 5). The rule that
 * keeps an all-digit token is implied: every other rule needs the token to end in "s".
 */
export function foldPlural(token: string): string {
  const n = token.length;
  if (n > 4 && token.endsWith("ies")) return `${token.slice(0, -3)}y`;
  if (n > 4 && token.endsWith("sses")) return token.slice(0, -2);
  if (
    n > 3 &&
    token.endsWith("s") &&
    !token.endsWith("ss") &&
    !token.endsWith("us") &&
    !token.endsWith("is")
  ) {
    return token.slice(0, -1);
  }
  return token;
}

/**
 * How text becomes tokens. `standard` is the tokenizer of docs/reference/behaviour.md section 1, the default.
 * `english` (opt-in) is the same but for step 5: each kept token is reduced by the Porter2 (Snowball English)
 * stemmer instead of folding plurals, so "running", "runs" and "run" are one term. Both are pure functions of the
 * text: no locale, no clock, the same tokens on every machine.
 *
 * @public
 */
export type Analysis = "standard" | "english";

/** The analysis profiles, in the order the docs list them. */
export const ANALYSES: readonly Analysis[] = ["standard", "english"];

const FOLDS: Readonly<Record<Analysis, (token: string) => string>> = { standard: foldPlural, english: stem };

/**
 * Checks a profile name a caller passed: anything but `standard` or `english` is refused (`invalid_request`), so a
 * typo never falls back to another tokenizer silently.
 */
export function checkAnalysis(analysis: unknown): Analysis {
  if ((ANALYSES as readonly unknown[]).includes(analysis)) return analysis as Analysis;
  throw new KxmError(
    "invalid_request",
    `analysis must be ${ANALYSES.map((name) => `"${name}"`).join(" or ")}`,
  );
}

/**
 * Splits text into the tokens that BM25 scores: NFKC, plain lowercase, split on every run of characters that is
 * neither a letter nor a number, drop tokens shorter than 2 or longer than 64 UTF-16 code units, drop stopwords,
 * fold plurals (or, with the `english` profile, stem). Order and duplicates are kept.
 *
 * @example tokenize("The flaky Playwright gates timed-out on CI; retries: 2")
 * // ["flaky", "playwright", "gate", "timed", "out", "ci", "retry"]
 * @example tokenize("The flaky Playwright gates timed-out on CI; retries: 2", "english")
 * // ["flaki", "playwright", "gate", "time", "out", "ci", "retri"]
 */
export function tokenize(text: string, analysis: Analysis = "standard"): string[] {
  const fold = FOLDS[checkAnalysis(analysis)];
  const ascii = ASCII.test(text);
  const tokens: string[] = [];
  for (const piece of (ascii ? text : text.normalize("NFKC")).toLowerCase().split(ASCII_SEPARATORS)) {
    if (ascii || !NON_ASCII.test(piece)) keep(piece, tokens, fold);
    else for (const raw of piece.split(SEPARATORS)) keep(raw, tokens, fold);
  }
  return tokens;
}

/** Keeps a run of letters and numbers as a token, folded, unless it is too short, too long or a stopword. */
function keep(raw: string, tokens: string[], fold: (token: string) => string): void {
  if (raw.length < LIMITS.minTokenChars || raw.length > LIMITS.maxTokenChars || STOPWORDS.has(raw)) return;
  tokens.push(fold(raw));
}

/** The distinct tokens of a query, in first-occurrence order (summing in that order keeps floats stable). */
export function queryTerms(text: string, analysis: Analysis = "standard"): string[] {
  return [...new Set(tokenize(text, analysis))];
}
