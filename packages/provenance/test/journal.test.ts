import { JOURNAL_CATEGORIES, type JournalCategory, type JournalEntry } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import { journalEntryToItem, journalKindFor } from "../src/index.js";
import { expectKxmError } from "./support.js";

function entry(category: JournalCategory, overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    id: "e42",
    project: "demo",
    runId: "run_7",
    stage: "verify",
    category,
    summary: `A ${category} from the verify stage`,
    evidenceRefs: ["log:run_7#L10"],
    createdAt: "2026-09-01T12:00:00Z",
    ...overrides,
  };
}

// docs/reference/behaviour.md section 6, written out.
const MAPPING: ReadonlyArray<[JournalCategory, "knowledge" | "skill" | "evidence", "proposed" | undefined]> =
  [
    ["plan", "knowledge", undefined],
    ["decision", "knowledge", undefined],
    ["lesson", "knowledge", undefined],
    ["skill-candidate", "skill", "proposed"],
    ["contradiction", "evidence", undefined],
    ["error", "evidence", undefined],
    ["observation", "evidence", undefined],
    ["hypothesis", "evidence", undefined],
    ["experiment", "evidence", undefined],
    ["state-change", "evidence", undefined],
  ];

describe("journalEntryToItem", () => {
  it("covers all 10 categories", () => {
    expect(MAPPING.map(([category]) => category).sort()).toEqual([...JOURNAL_CATEGORIES].sort());
  });

  it.each(MAPPING)("maps %s to a %s item", (category, kind, status) => {
    expect(journalKindFor(category)).toBe(kind);
    const converted = journalEntryToItem(entry(category));
    const expected: Record<string, unknown> = {
      id: "journal_e42",
      kind,
      project: "demo",
      summary: `A ${category} from the verify stage`,
      provenance: { sourceType: "workflow", sourceRef: "journal:e42" },
      authority: "evidence",
      confidence: "probable",
    };
    if (status !== undefined) expected.status = status;
    expected.observedAt = "2026-09-01T12:00:00Z";
    expected.evidenceRefs = ["log:run_7#L10"];
    expect(JSON.stringify(converted)).toBe(JSON.stringify(expected));
  });

  it.each(["lesson", "skill-candidate"] as const)(
    "refuses a %s without evidence refs with 400 journal_evidence_required",
    (category) => {
      expectKxmError(
        () => journalEntryToItem(entry(category, { evidenceRefs: undefined })),
        "journal_evidence_required",
        400,
      );
      expectKxmError(
        () => journalEntryToItem(entry(category, { evidenceRefs: [] })),
        "journal_evidence_required",
        400,
      );
    },
  );

  it.each(["plan", "decision", "error", "observation"] as const)(
    "accepts a %s without evidence refs",
    (category) => {
      const converted = journalEntryToItem(entry(category, { evidenceRefs: undefined }));
      expect(Object.hasOwn(converted, "evidenceRefs")).toBe(false);
    },
  );

  it("refuses a malformed entry with 400 invalid_context_item", () => {
    expectKxmError(
      () => journalEntryToItem({ ...entry("plan"), category: "gossip" } as unknown as JournalEntry),
      "invalid_context_item",
      400,
    );
    expectKxmError(
      () => journalEntryToItem({ ...entry("plan"), createdAt: "noon" } as JournalEntry),
      "invalid_context_item",
      400,
    );
    expectKxmError(() => journalEntryToItem(null as unknown as JournalEntry), "invalid_context_item", 400);
  });

  it("never echoes a secret pasted as an unknown key", () => {
    const secret = ["gh", "p_", "JOURNALFAKETOKEN".padEnd(36, "0")].join("");
    const error = expectKxmError(
      () => journalEntryToItem({ ...entry("plan"), [secret]: true } as JournalEntry),
      "invalid_context_item",
      400,
    );
    expect(error.message).not.toContain(secret);
  });

  it("refuses an entry over a limit with 400 context_limits_exceeded", () => {
    expectKxmError(
      () => journalEntryToItem(entry("plan", { summary: "x".repeat(4001) })),
      "context_limits_exceeded",
      400,
    );
  });

  it("refuses with 400 context_limits_exceeded when the journal_ prefix pushes the id past 128", () => {
    expectKxmError(
      () => journalEntryToItem(entry("plan", { id: "e".repeat(125) })),
      "context_limits_exceeded",
      400,
    );
  });

  it("redacts secrets in the summary", () => {
    const secret = ["xo", "xb-", "1234567890-1234567890123-", "FAKEexampleTOKEN00000000"].join("");
    expect(journalEntryToItem(entry("error", { summary: `slack failed with ${secret}` })).summary).toBe(
      "slack failed with [redacted]",
    );
  });

  it("does not carry runId or stage, which context items have no field for", () => {
    const converted = journalEntryToItem(entry("error")) as Record<string, unknown>;
    expect(converted.runId).toBeUndefined();
    expect(converted.stage).toBeUndefined();
  });

  it("refuses an unknown category in journalKindFor with 400 invalid_context_item", () => {
    expectKxmError(() => journalKindFor("gossip" as JournalCategory), "invalid_context_item", 400);
  });
});
