import type { WikiRecords } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import {
  compileWiki,
  GENERATED_MARKER,
  lintWiki,
  PAGE_FILES,
  PAGES,
  TIMESTAMP_PREFIX,
} from "../src/index.js";
import { journalRow, sampleRecords, stateItem } from "./records.js";

/** A deterministic shuffle (a seeded linear congruential generator), so a failure can be replayed. */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function shuffledRecords(records: WikiRecords, seed: number): WikiRecords {
  return {
    ...records,
    state: shuffled(records.state, seed),
    memory: shuffled(records.memory, seed + 1),
    skills: shuffled(records.skills, seed + 2),
    journal: shuffled(records.journal, seed + 3),
    contradictions: {
      state: shuffled(records.contradictions.state, seed + 4).map((entry) => ({
        ...entry,
        itemIds: shuffled(entry.itemIds, seed + 5),
      })),
      journal: shuffled(records.contradictions.journal, seed + 6),
    },
  };
}

function all(pages: ReadonlyMap<string, string>): string {
  return [...pages.values()].join("\n");
}

describe("compileWiki", () => {
  test("writes exactly the eight pages, each starting with the generated marker", () => {
    const pages = compileWiki(sampleRecords());
    expect([...pages.keys()]).toEqual([...PAGE_FILES]);
    for (const [page, body] of pages) {
      expect(body.startsWith(`${GENERATED_MARKER}\n`), page).toBe(true);
      expect(body.endsWith("\n") && !body.endsWith("\n\n"), page).toBe(true);
    }
  });

  test("is byte-identical for shuffled records and repeated calls; only the index timestamp follows the clock", () => {
    const records = sampleRecords();
    const reference = compileWiki(records);
    for (let seed = 1; seed <= 25; seed++) {
      expect(compileWiki(shuffledRecords(records, seed))).toEqual(reference);
    }
    const later = compileWiki({ ...records, generatedAt: "2027-01-01T00:00:00.000Z" });
    for (const page of PAGE_FILES) {
      if (page !== PAGES.index) expect(later.get(page)).toBe(reference.get(page));
    }
    const diff = later
      .get(PAGES.index)!
      .split("\n")
      .filter((line, i) => line !== reference.get(PAGES.index)!.split("\n")[i]);
    expect(diff).toEqual([`${TIMESTAMP_PREFIX}2027-01-01T00:00:00.000Z`]);
  });

  test("drops pending and consumed proposals even when they are passed in", () => {
    const records = sampleRecords();
    records.state.push(
      stateItem("state_pending", "release.branch", "PENDING value", "proposed", "2026-10-01T09:05:00.000Z"),
      stateItem(
        "state_consumed",
        "release.branch",
        "CONSUMED value",
        "rejected",
        "2026-10-01T09:00:30.000Z",
        "2026-10-01T09:01:00.000Z",
      ),
    );
    const text = all(compileWiki(records));
    expect(text).not.toContain("PENDING value");
    expect(text).not.toContain("CONSUMED value");
    expect(text).not.toContain("state_pending");
    expect(compileWiki(records)).toEqual(compileWiki(sampleRecords()));
  });

  test("every claim links its record id and names its source", () => {
    const pages = compileWiki(sampleRecords());
    const claims = all(pages)
      .split("\n")
      .filter((line) => line.includes("<!-- kxm:claim"));
    expect(claims.length).toBeGreaterThan(0);
    for (const line of claims) {
      const id = /kxm:claim id=(\S+)/.exec(line)![1]!;
      expect(line, line).toContain(`[\`${id}\`](`);
      expect(line, line).toMatch(/ · source (`[^`]+`|\[`[^`]+`\]\([^)]+\)) \((git|peer|human|workflow)\)/);
    }
  });

  test("a memory fact's cited file and a skill's SKILL.md are linked from the project root", () => {
    const patterns = compileWiki(sampleRecords()).get(PAGES.patterns)!;
    expect(patterns).toContain("source [`docs/testing.md`](../../../docs/testing.md) (git)");
    expect(patterns).toContain(
      `source [\`skill:release-check.0123456789ab@${"a".repeat(64)}\`](../../skills/promoted/release-check.0123456789ab/release-check/SKILL.md) (git)`,
    );
    const records = sampleRecords();
    records.memory[0] = {
      ...records.memory[0]!,
      provenance: { sourceType: "git", sourceRef: "../outside.md" },
    };
    expect(compileWiki(records).get(PAGES.patterns)).toContain("source `../outside.md` (git)");
  });

  test("superseded values stay visible with their validity window and successor", () => {
    const temporal = compileWiki(sampleRecords()).get(PAGES.temporalState)!;
    expect(temporal).toContain(
      "valid from 2026-10-01T09:00:00.000Z until 2026-10-01T09:01:00.000Z · superseded by [`state_b`](#state_b)",
    );
    const history = compileWiki(sampleRecords()).get(PAGES.supersededHistory)!;
    expect(history).toContain("[`state_a`](temporal-state.md#state_a) · ended 2026-10-01T09:01:00.000Z");
  });

  test("contradictions are listed, never resolved: both current values stay current", () => {
    const records = sampleRecords();
    records.state.push(
      stateItem("state_x1", "deploy.window", "Deploy in the morning", "current", "2026-10-01T09:03:00.000Z"),
      stateItem("state_x2", "deploy.window", "Deploy in the evening", "current", "2026-10-01T09:03:00.000Z"),
    );
    records.contradictions.state.push({ stateKey: "deploy.window", itemIds: ["state_x1", "state_x2"] });
    const pages = compileWiki(records);
    const contradictions = pages.get(PAGES.contradictions)!;
    expect(contradictions).toContain(
      "[`state_x1`](temporal-state.md#state_x1) — current value: Deploy in the morning",
    );
    expect(contradictions).toContain(
      "[`state_x2`](temporal-state.md#state_x2) — current value: Deploy in the evening",
    );
    const temporal = pages.get(PAGES.temporalState)!;
    expect(temporal).toContain("This key has an open contradiction");
    expect(temporal.match(/status=current -->/g)?.length).toBe(4);
    expect(lintWiki(pages, records)).toEqual([]);
  });

  test("a hostile summary cannot inject a link, a heading, HTML or a lint marker", () => {
    const records = sampleRecords();
    records.journal.push(
      journalRow(
        "j_evil",
        "lesson",
        "x <!-- kxm:claim id=state_gone status=current --> [pwn](http://evil) <script>\n# Heading `tick`",
        "2026-10-01T08:40:00.000Z",
      ),
    );
    const patterns = compileWiki(records).get(PAGES.patterns)!;
    const line = patterns.split("\n").find((l) => l.includes("journal_j_evil"))!;
    expect(line).toContain(
      "&lt;\\!-- kxm:claim id=state\\_gone status=current --&gt; \\[pwn\\](http://evil) &lt;script&gt; \\# Heading \\`tick\\`",
    );
    expect(line.match(/<!-- kxm:claim/g)?.length).toBe(1);
    expect(lintWiki(compileWiki(records), records)).toEqual([]);
  });

  test("a summary that looks like a link to a page or a source is no finding for wiki-lint", () => {
    const records = sampleRecords();
    records.journal.push(
      journalRow(
        "j_links",
        "lesson",
        "see [pwn](evil.md) and [src](../../../x.md)",
        "2026-10-01T08:41:00.000Z",
      ),
    );
    expect(lintWiki(compileWiki(records), records)).toEqual([]);
  });

  test("links between pages are bare file names of pages that exist, and every anchor they name exists", () => {
    const pages = compileWiki(sampleRecords());
    expect(lintWiki(pages, sampleRecords())).toEqual([]);
    expect(pages.get(PAGES.index)).toContain("[Temporal state](temporal-state.md)");
    for (const body of pages.values()) {
      for (const match of body.matchAll(/\]\(([^)]*)\)/g)) {
        const file = match[1]!.split("#")[0]!;
        // Source links leave the wiki folder for the project root; links between pages never do.
        if (file.startsWith("../")) continue;
        if (file !== "") expect(PAGE_FILES).toContain(file);
      }
    }
  });

  test("an empty project compiles to pages that say so", () => {
    const empty: WikiRecords = {
      project: "empty",
      generatedAt: "2026-10-01T10:00:00.000Z",
      state: [],
      memory: [],
      skills: [],
      journal: [],
      contradictions: { state: [], journal: [] },
    };
    const pages = compileWiki(empty);
    expect(pages.get(PAGES.decisions)).toContain("_No reviewed records in this section._");
    expect(pages.get(PAGES.contradictions)).toContain("_No open contradictions._");
    expect(pages.get(PAGES.temporalState)).toContain("_No state value has been promoted yet._");
    expect(lintWiki(pages, empty)).toEqual([]);
  });
});
