import { describe, expect, test } from "vitest";
import { compileWiki, formatFinding, lintWiki, PAGES } from "../src/index.js";
import { sampleRecords, stateItem } from "./records.js";

function codes(findings: ReturnType<typeof lintWiki>): string[] {
  return findings.map(
    (found) => `${found.code} ${found.page}${found.line === undefined ? "" : `:${found.line}`}`,
  );
}

describe("lintWiki", () => {
  test("a fresh compile has no findings", () => {
    expect(lintWiki(compileWiki(sampleRecords()), sampleRecords())).toEqual([]);
  });

  test("no false stale_state_link: a superseded value right under the Current heading is not a stale link", () => {
    const records = sampleRecords();
    const pages = new Map(compileWiki(records));
    const lines = pages.get(PAGES.temporalState)!.split("\n");
    const superseded = lines.findIndex((line) => line.includes('<a id="state_a"></a>'));
    const [moved] = lines.splice(superseded, 1);
    const current = lines.findIndex((line, i) => line === "### Current" && lines[i + 2]?.includes("state_b"));
    // Directly under the heading of release.branch, before the current value itself.
    lines.splice(current + 2, 0, moved!);
    pages.set(PAGES.temporalState, lines.join("\n"));
    expect(pages.get(PAGES.temporalState)).toMatch(
      /### Current\n\n- <a id="state_a"><\/a>Releases are cut from main/,
    );
    expect(lintWiki(pages, records)).toEqual([]);
  });

  test("a claim of current for a value the hub has since superseded is a stale_state_link, on every page", () => {
    const before = sampleRecords();
    const pages = compileWiki(before);
    const after = sampleRecords();
    after.state = after.state.map((item) =>
      item.id === "state_b"
        ? { ...item, status: "superseded", validUntil: "2026-10-01T09:10:00.000Z" }
        : item,
    );
    after.state.push(
      stateItem(
        "state_d",
        "release.branch",
        "Releases are cut from tags",
        "current",
        "2026-10-01T09:10:00.000Z",
      ),
    );
    const findings = lintWiki(pages, after);
    const stale = findings.filter((found) => found.code === "stale_state_link");
    expect(stale.map((found) => [found.page, found.id])).toEqual([
      [PAGES.decisions, "state_b"],
      [PAGES.temporalState, "state_b"],
    ]);
    expect(stale.every((found) => found.severity === "error")).toBe(true);
    expect(formatFinding(stale[0]!)).toMatch(
      /^error stale_state_link decisions\.md:\d+ claims state_b is current, but the hub holds it as superseded$/,
    );
    expect(findings.filter((found) => found.code === "missing_record").map((found) => found.id)).toEqual([
      "state_d",
    ]);
    expect(lintWiki(compileWiki(after), after)).toEqual([]);
  });

  test("broken references: a purged record, a missing page and a missing anchor", () => {
    const records = sampleRecords();
    const pages = new Map(compileWiki(records));
    const purged = { ...records, journal: records.journal.filter((row) => row.entry.id !== "j_1") };
    pages.delete(PAGES.supersededHistory);
    pages.set(
      PAGES.patterns,
      `${pages.get(PAGES.patterns)!}\nSee [the lost page](lost.md) and [nowhere](decisions.md#no-such-anchor).\n`,
    );
    const found = codes(lintWiki(pages, purged));
    expect(found).toContain(
      `broken_reference decisions.md:${lineOf(pages.get(PAGES.decisions)!, 'journal_j_1"></a>')}`,
    );
    expect(found).toContain(`missing_page ${PAGES.supersededHistory}`);
    expect(found.filter((line) => line.startsWith("broken_reference patterns.md"))).toHaveLength(2);
    // index.md still links the missing page.
    expect(found.some((line) => line.startsWith("broken_reference index.md"))).toBe(true);
  });

  test("source links out of the folder are checked only with fileExists, as warnings", () => {
    const records = sampleRecords();
    const pages = compileWiki(records);
    expect(lintWiki(pages, records)).toEqual([]);
    const asked: string[] = [];
    const found = lintWiki(pages, records, {
      fileExists: (path) => {
        asked.push(path);
        return path !== "../../../docs/testing.md";
      },
    });
    expect(asked).toContain("../../skills/promoted/release-check.0123456789ab/release-check/SKILL.md");
    expect(found.map((f) => [f.code, f.severity, f.page, f.message])).toEqual([
      [
        "broken_source_link",
        "warning",
        PAGES.patterns,
        "links the source ../../../docs/testing.md, which does not exist",
      ],
    ]);
  });

  test("orphan pages and hidden or stale contradictions", () => {
    const records = sampleRecords();
    const pages = new Map(compileWiki(records));
    pages.set("notes.md", "# Notes\n");
    const lines = pages.get(PAGES.contradictions)!.split("\n");
    pages.set(PAGES.contradictions, lines.filter((line) => !line.includes("id=state_p1 ")).join("\n"));
    const reopened = {
      ...records,
      contradictions: { state: records.contradictions.state, journal: ["journal_j_9"] },
    };
    const findings = lintWiki(pages, reopened);
    expect(findings.map((found) => [found.code, found.severity, found.id ?? found.page])).toEqual(
      expect.arrayContaining([
        ["hidden_contradiction", "error", "state_p1"],
        ["stale_contradiction", "warning", "journal_j_3"],
        ["orphan_page", "warning", "notes.md"],
      ]),
    );
  });
});

function lineOf(body: string, needle: string): number {
  return body.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

describe("lintWiki: expiry and review dates, judged at the records' generatedAt", () => {
  test("a claim of a record past its reviewBy is review_due; past its expiresAt, expired_record", () => {
    const records = sampleRecords();
    const current = records.state.find((item) => item.status === "current")!;
    const dated = {
      ...records,
      state: records.state.map((item) =>
        item.id === current.id
          ? { ...item, reviewBy: "2026-10-01T09:00:00.000Z", expiresAt: "2026-10-02T00:00:00.000Z" }
          : item,
      ),
    };
    const pages = compileWiki(dated);
    const due = lintWiki(pages, dated);
    expect(due.length).toBeGreaterThan(0);
    expect(new Set(due.map((found) => `${found.code} ${found.id}`))).toEqual(
      new Set([`review_due ${current.id}`]),
    );
    expect(formatFinding(due[0]!)).toMatch(
      /^warning review_due \S+:\d+ claims \S+, which was due for review at /,
    );
    const later = lintWiki(pages, { ...dated, generatedAt: "2026-10-02T00:00:00.000Z" });
    expect(new Set(later.map((found) => `${found.code} ${found.id}`))).toEqual(
      new Set([`expired_record ${current.id}`]),
    );
    // Before either date, and for records without dates, nothing is reported.
    expect(lintWiki(pages, { ...dated, generatedAt: "2026-09-30T00:00:00.000Z" })).toEqual([]);
  });
});
