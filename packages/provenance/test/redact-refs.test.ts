import { LIMITS } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import { leaked, secretCases } from "../../../reliability/src/lib/secrets-corpus.mjs";
import {
  journalEntryToItem,
  parseContextItem,
  REDACTED,
  redactRef,
  redactRefs,
  redactSecrets,
} from "../src/index.js";
import { rawItem } from "./support.js";

// Corpus cases short enough to be one reference (the schema allows 512 characters).
const CASES = secretCases(20261202).filter((c) => c.text.length <= LIMITS.refChars);
/** A whole corpus secret of `kind` (generated from the seed, so no literal secret is in the repository). */
function secretOf(kind: string): string {
  const found = CASES.find((c) => c.kind === kind);
  if (found === undefined) throw new Error(`no corpus case of kind ${kind}`);
  return found.secret;
}
const KEY = secretOf("kxm-agent-key");
const OTHER_KEY = secretOf("github-classic-token");

describe("redactRefs", () => {
  it("redacts corpus secrets in references, whole references and references with a secret inside", () => {
    expect(CASES.length).toBeGreaterThan(200);
    const refs = CASES.map((c) => c.text);
    const out = redactRefs(refs);
    const text = out.join("\n");
    const leaks = CASES.filter((c) => leaked(c.secret, text)).map((c) => `${c.kind}/${c.context}`);
    // The same recall goal as summaries (at least 99%).
    expect(leaks.length / CASES.length).toBeLessThanOrEqual(0.01);
    expect(redactRefs([`pr:12 token ${KEY}`, KEY])).toEqual([`pr:12 token ${REDACTED}`, REDACTED]);
  });

  it("merges references that became equal, in first-occurrence order", () => {
    expect(redactRefs(["pr:12", KEY, "ci:run-7", OTHER_KEY, "pr:12-b"])).toEqual([
      "pr:12",
      REDACTED,
      "ci:run-7",
      "pr:12-b",
    ]);
    expect(redactRefs([`log ${KEY}`, `log ${OTHER_KEY}`])).toEqual([`log ${REDACTED}`]);
  });

  it("keeps ordinary references byte-identical, and is idempotent", () => {
    const refs = [
      "pr:12",
      "commit:3f2a9c1d0e4b5a6978877665544332211aabbccd",
      "ci:run-42",
      "https://x.test/a?b=1",
    ];
    expect(redactRefs(refs)).toEqual(refs);
    const once = redactRefs(CASES.map((c) => c.text));
    expect(redactRefs(once)).toEqual(once);
  });

  it("cuts a reference that redaction made longer than the limit, instead of refusing it", () => {
    // `-pab1c` is shorter than `[redacted]`, so redaction alone would make this reference 516 characters.
    const tail = " mysql -pab1c";
    const ref = `${"x".repeat(LIMITS.refChars - tail.length)}${tail}`;
    expect(redactSecrets(ref).length).toBeGreaterThan(LIMITS.refChars);
    const out = redactRef(ref);
    expect(out.length).toBeLessThanOrEqual(LIMITS.refChars);
    expect(out.endsWith("…")).toBe(true);
    expect(out).not.toContain("ab1c");
  });
});

describe("admission redacts reference lists", () => {
  it("parseContextItem redacts evidenceRefs, supersedes and derivedFrom, merging equal ones", () => {
    const item = parseContextItem(
      rawItem({ evidenceRefs: ["pr:12", KEY, OTHER_KEY], supersedes: [`ev_old ${KEY}`, "ev_2"] }),
    );
    expect(item.evidenceRefs).toEqual(["pr:12", REDACTED]);
    expect(item.supersedes).toEqual([`ev_old ${REDACTED}`, "ev_2"]);
    const derived = parseContextItem(
      rawItem({ provenance: { sourceType: "derived", derivedFrom: [KEY, OTHER_KEY, "ev_1"] } }),
    );
    expect(derived.provenance.derivedFrom).toEqual([REDACTED, "ev_1"]);
  });

  it("a lesson whose only evidence is a secret still has evidence", () => {
    const item = journalEntryToItem({
      id: "j_1",
      project: "demo",
      runId: "run_1",
      category: "lesson",
      summary: "Retry the upload",
      evidenceRefs: [KEY, OTHER_KEY],
      createdAt: "2026-12-02T01:00:00.000Z",
    });
    expect(item.evidenceRefs).toEqual([REDACTED]);
  });
});
