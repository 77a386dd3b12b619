import { foldPlural, queryTerms, STOPWORDS, tokenize } from "@kxm/arbiter";
import { describe, expect, test } from "vitest";

describe("tokenize", () => {
  test("gives the behaviour.md example tokens", () => {
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
