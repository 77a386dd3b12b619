import { foldPlural, queryTerms, STOPWORDS, tokenize } from "@kxm/arbiter";
import fc from "fast-check";
import { describe, expect, test } from "vitest";

/**
 * docs/reference/behaviour.md section 1 step by step, with none of tokenize's shortcuts (skipping NFKC for ASCII, a plain
 * character class for lowercased ASCII, two splits for other text, no separate all-digit test): the reference
 * tokenize must agree with.
 */
function specTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || raw.length > 64 || STOPWORDS.has(raw)) continue;
    let token = raw;
    const n = raw.length;
    if (/^\p{N}+$/u.test(raw)) token = raw;
    else if (n > 4 && raw.endsWith("ies")) token = `${raw.slice(0, -3)}y`;
    else if (n > 4 && raw.endsWith("sses")) token = raw.slice(0, -2);
    else if (n > 3 && raw.endsWith("s") && !/(ss|us|is)$/.test(raw)) token = raw.slice(0, -1);
    tokens.push(token);
  }
  return tokens;
}

/**
 * Text mixing ASCII words, digits, punctuation and some non-ASCII letters, digits and compatibility forms, joined by
 * ASCII and non-ASCII separators (or none), so that runs such as "—." and letters beside an emoji occur.
 */
const textArb = fc
  .array(
    fc.tuple(
      fc.oneof(
        {
          weight: 6,
          arbitrary: fc.constantFrom("the", "Gates", "CLASSES", "Berries", "status", "is", "1990s", "42"),
        },
        { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 12 }) },
        {
          weight: 1,
          arbitrary: fc.constantFrom("Ünïcode", "ＦＵＬＬ", "ﬁles", "٣٤٥", "Ⅻs", "ΣΑΣ", "İstanbul", "½s"),
        },
        {
          // Non-ASCII separators inside a word, combining marks, astral letters (Deseret capitals lowercase to
          // astral letters), an emoji and a lone surrogate.
          weight: 1,
          arbitrary: fc.constantFrom(
            "em—dash",
            "naïve·café",
            "e\u0301te\u0301s",
            "ok😀go",
            "x\ud800yz",
            "a\u00a0bc",
            "𠀀𠀁",
            "𐐀𐐁x",
          ),
        },
      ),
      fc.constantFrom(" ", " ", "", "-", "—", ". ", "·", "\u00a0", "😀", "\ud800"),
    ),
    { maxLength: 40 },
  )
  .map((pairs) => pairs.map(([word, separator]) => word + separator).join(""));

describe("tokenize", () => {
  test("gives the docs/reference/behaviour.md example tokens", () => {
    expect(tokenize("The flaky Playwright gates timed-out on CI; retries: 2")).toEqual([
      "flaky",
      "playwright",
      "gate",
      "timed",
      "out",
      "ci",
      "retry",
    ]);
  });

  test("splits on dots, underscores, hyphens and punctuation", () => {
    expect(tokenize("release.branch deploy_target blue-green (canary)!")).toEqual([
      "release",
      "branch",
      "deploy",
      "target",
      "blue",
      "green",
      "canary",
    ]);
  });

  test("applies NFKC before lowercasing: full-width letters and ligatures fold", () => {
    expect(tokenize("ＦＵＬＬＷＩＤＴＨ ﬁle")).toEqual(["fullwidth", "file"]);
  });

  test("keeps letters and numbers of any script and splits on combining marks", () => {
    expect(tokenize("Größe 東京 données")).toEqual(["größe", "東京", "donnée"]);
    // A combining mark that NFKC cannot compose still splits the word.
    expect(tokenize("ab\u0301cd")).toEqual(["ab", "cd"]);
  });

  test("drops tokens shorter than 2 or longer than 64 characters, never truncating", () => {
    const long = "x".repeat(65);
    const edge = "y".repeat(64);
    expect(tokenize(`a b 7 ok ${long} ${edge}`)).toEqual(["ok", edge]);
  });

  test("drops all 60 stopwords, checked before plural folding", () => {
    expect(STOPWORDS.size).toBe(60);
    expect(tokenize([...STOPWORDS].join(" "))).toEqual([]);
    // "ours" is no stopword, so it folds to "our" and stays: the list is not checked again after folding.
    expect(tokenize("its ours thes")).toEqual(["our", "the"]);
  });

  test("keeps order and duplicates", () => {
    expect(tokenize("deploy Deploy DEPLOY staging")).toEqual(["deploy", "deploy", "deploy", "staging"]);
  });
});

describe("foldPlural", () => {
  test.each([
    ["retries", "retry"],
    ["classes", "class"],
    ["releases", "release"],
    ["boxes", "boxe"],
    ["ids", "ids"],
    ["status", "status"],
    ["analysis", "analysis"],
    ["pass", "pass"],
    ["ties", "tie"],
    ["thiss", "thiss"],
    ["bus", "bus"],
    ["cats", "cat"],
    ["1990s", "1990"],
    ["2024", "2024"],
    ["ties5", "ties5"],
  ])("%s becomes %s", (input, output) => {
    expect(foldPlural(input)).toBe(output);
  });
});

describe("tokenize against the specification", () => {
  test("gives the same tokens as docs/reference/behaviour.md's steps on ASCII and non-ASCII text", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(tokenize(text)).toEqual(specTokens(text));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("queryTerms", () => {
  test("gives distinct tokens in first-occurrence order", () => {
    expect(queryTerms("branch release branches releases main")).toEqual([
      "branch",
      "release",
      "branche",
      "main",
    ]);
  });
});
