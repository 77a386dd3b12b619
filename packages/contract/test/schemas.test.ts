import {
  type ContextItem,
  ContextItemSchema,
  type ContextRequest,
  ContextRequestSchema,
  type ErrorCode,
  type JournalEntry,
  JournalEntrySchema,
  KxmError,
  kxmErrorFromZod,
  LIMITS,
  parseOrThrow,
  type RecallRequest,
  RecallRequestSchema,
  RefListSchema,
} from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { z } from "zod";

// Records and requests from the user guide (context-and-memory.md) and docs/reference/behaviour.md, as the contract sees them.

/** `kxm context get demo --role planner --task "Which branch do we release from?"` */
const guideContextRequest: ContextRequest = {
  project: "demo",
  role: "planner",
  task: "Which branch do we release from?",
};

/** The same request with every optional field. */
const fullContextRequest: ContextRequest = {
  project: "demo",
  role: "critic-arch",
  task: "Why did the release gate fail?",
  budgetTokens: 4_000,
  includeKinds: ["evidence", "episode"],
  runId: "run_42",
  stage: "verify",
};

/** `kxm context recall demo --query "release branch"` */
const guideRecallRequest: RecallRequest = { project: "demo", query: "release branch" };

/** The promoted agent proposal of "Manage temporal state": peer origin, kept at evidence authority. */
const promotedStateItem: ContextItem = {
  id: "state_release_branch_2",
  kind: "state",
  project: "demo",
  summary: "Releases are cut from the main branch",
  provenance: { sourceType: "peer", sourceRef: "promoted-by:kxm-admin" },
  authority: "evidence",
  confidence: "verified",
  status: "current",
  stateKey: "release.branch",
  validFrom: "2026-09-01T00:00:00Z",
  evidenceRefs: ["pr:12", "review:pr-12"],
  supersedes: ["state_release_branch_1"],
};

/** The pending proposal before promotion. */
const proposedStateItem: ContextItem = {
  id: "state_release_branch_1",
  kind: "state",
  project: "demo",
  summary: "Releases are cut from the main branch",
  provenance: { sourceType: "peer", sourceRef: "proposed-by:agent-7" },
  authority: "evidence",
  confidence: "verified",
  status: "proposed",
  stateKey: "release.branch",
  validFrom: "2026-08-31T12:00:00+02:00",
  evidenceRefs: ["pr:12"],
};

/** `.kxm/memory/test-runner.md` as an item (docs/reference/behaviour.md section 7). */
const memoryItem: ContextItem = {
  id: "mem_test-runner",
  kind: "knowledge",
  project: "demo",
  summary: "Run the test suite with npm test before every commit",
  provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
  authority: "instruction",
  confidence: "verified",
};

/** An operator-scope memory fact: a `_shared` default. */
const sharedMemoryItem: ContextItem = {
  ...memoryItem,
  id: "mem_use-pnpm",
  project: "_shared",
  summary: "Use pnpm, not npm, in this repository",
};

/** A `lesson` journal entry and the item it becomes (docs/reference/behaviour.md section 6). */
const lessonEntry: JournalEntry = {
  id: "e17",
  project: "demo",
  runId: "run_42",
  stage: "verify",
  category: "lesson",
  summary: "The flaky Playwright gates timed-out on CI; retries: 2",
  evidenceRefs: ["run:run_42"],
  createdAt: "2026-09-02T08:30:00.000Z",
};

const journalItem: ContextItem = {
  id: "journal_e17",
  kind: "knowledge",
  project: "demo",
  summary: "The flaky Playwright gates timed-out on CI; retries: 2",
  provenance: { sourceType: "workflow", sourceRef: "journal:e17" },
  authority: "evidence",
  confidence: "probable",
  observedAt: "2026-09-02T08:30:00.000Z",
  evidenceRefs: ["run:run_42"],
};

/** A promoted skill as an item. */
const skillItem: ContextItem = {
  id: "skill_release-notes.0123456789ab",
  kind: "skill",
  project: "demo",
  summary: "release-notes: Draft release notes from merged pull requests",
  provenance: { sourceType: "git", sourceRef: `skill:release-notes.0123456789ab@${"ab".repeat(32)}` },
  authority: "instruction",
  confidence: "verified",
  status: "current",
};

/** A derived summary of two items (docs/reference/behaviour.md section 4). */
const derivedItem: ContextItem = {
  id: "derived_1",
  kind: "knowledge",
  project: "demo",
  summary: "Releases come from main and need green Playwright gates",
  provenance: { sourceType: "derived", derivedFrom: ["journal_e17", "state_release_branch_2"] },
  authority: "evidence",
  confidence: "probable",
};

const guideItems: readonly ContextItem[] = [
  promotedStateItem,
  proposedStateItem,
  memoryItem,
  sharedMemoryItem,
  journalItem,
  skillItem,
  derivedItem,
];

// ---------------------------------------------------------------------------------------------------------------

/** The KxmError that parseOrThrow throws for `value`; fails the test when the value parses. */
function refusal(schema: z.ZodType, value: unknown, code: ErrorCode, subject = "value"): KxmError {
  try {
    parseOrThrow(schema, value, code, subject);
  } catch (error) {
    if (error instanceof KxmError) return error;
    throw error;
  }
  throw new Error(`expected ${subject} to be refused, but it parsed`);
}

const chars = (n: number, c = "x") => c.repeat(n);
const refs = (n: number) => Array.from({ length: n }, (_, i) => `ref:${i}`);
const FIVE_KINDS = ["evidence", "state", "episode", "knowledge", "skill"] as const;

describe("the guide's examples parse", () => {
  test.each(guideItems.map((item) => [item.id, item] as const))("item %s", (_id, item) => {
    expect(parseOrThrow(ContextItemSchema, item, "invalid_context_item", "item")).toEqual(item);
  });

  test("the planner's context request", () => {
    expect(
      parseOrThrow(ContextRequestSchema, guideContextRequest, "invalid_request", "context request"),
    ).toEqual(guideContextRequest);
  });

  test("a context request with every optional field", () => {
    expect(
      parseOrThrow(ContextRequestSchema, fullContextRequest, "invalid_request", "context request"),
    ).toEqual(fullContextRequest);
  });

  test("the recall request", () => {
    expect(
      parseOrThrow(RecallRequestSchema, guideRecallRequest, "invalid_request", "recall request"),
    ).toEqual(guideRecallRequest);
  });

  test("a lesson journal entry", () => {
    expect(parseOrThrow(JournalEntrySchema, lessonEntry, "invalid_request", "journal entry")).toEqual(
      lessonEntry,
    );
  });
});

describe("a context item", () => {
  const item = memoryItem;
  const withProvenance = (provenance: Record<string, unknown>) => ({
    ...item,
    provenance: { ...item.provenance, ...provenance },
  });

  test("has its summary trimmed", () => {
    const parsed = parseOrThrow(
      ContextItemSchema,
      { ...item, summary: "  Run the tests first \n" },
      "invalid_context_item",
      "item",
    );
    expect(parsed.summary).toBe("Run the tests first");
  });

  test("may have a summary of 4,000 characters after trimming", () => {
    const parsed = parseOrThrow(
      ContextItemSchema,
      { ...item, summary: `  \n${chars(LIMITS.summaryChars)}\t ` },
      "invalid_context_item",
      "item",
    );
    expect(parsed.summary).toHaveLength(4_000);
  });

  test("may have 64 distinct references in each list", () => {
    const value = {
      ...withProvenance({ derivedFrom: refs(64) }),
      evidenceRefs: refs(64),
      supersedes: refs(64),
    };
    expect(() => parseOrThrow(ContextItemSchema, value, "invalid_context_item", "item")).not.toThrow();
  });

  test.each<[string, unknown]>([
    ["a summary of 4,001 characters after trimming", { ...item, summary: ` ${chars(4_001)} ` }],
    ["an id of 129 characters", { ...item, id: chars(129) }],
    ["a project id of 129 characters", { ...item, project: chars(129) }],
    ["a state key of 201 characters", { ...item, stateKey: chars(201) }],
    ["a source reference of 513 characters", withProvenance({ sourceRef: chars(513) })],
    ["a scope of 65 characters", { ...item, scope: chars(65) }],
    ["65 evidence references", { ...item, evidenceRefs: refs(65) }],
    ["a repeated evidence reference", { ...item, evidenceRefs: ["pr:12", "pr:12"] }],
    ["an empty evidence reference", { ...item, evidenceRefs: [""] }],
    ["an evidence reference of 513 characters", { ...item, evidenceRefs: [chars(513)] }],
    ["65 superseded ids", { ...item, supersedes: refs(65) }],
    ["a repeated superseded id", { ...item, supersedes: ["a", "b", "a"] }],
    ["65 ancestors in derivedFrom", withProvenance({ derivedFrom: refs(65) })],
    ["a repeated ancestor", withProvenance({ derivedFrom: ["a", "a"] })],
    ["an empty ancestor", withProvenance({ derivedFrom: ["a", ""] })],
  ])("with %s is refused as context_limits_exceeded", (_what, value) => {
    const error = refusal(ContextItemSchema, value, "invalid_context_item", "item");
    expect(error.code).toBe("context_limits_exceeded");
    expect(error.status).toBe(400);
  });

  test.each<[string, unknown]>([
    ["an empty summary", { ...item, summary: "" }],
    ["a summary of white space only", { ...item, summary: " \n\t " }],
    ["no summary", { ...item, summary: undefined }],
    ["a summary that is not a string", { ...item, summary: 42 }],
    ["an empty id", { ...item, id: "" }],
    ["an id with white space", { ...item, id: "mem test" }],
    ["a project id with a slash", { ...item, project: "demo/other" }],
    ["an unknown kind", { ...item, kind: "memory" }],
    ["an unknown authority", { ...item, authority: "admin" }],
    ["an unknown confidence", { ...item, confidence: "certain" }],
    ["an unknown status", { ...item, status: "active" }],
    ["an unknown origin", withProvenance({ sourceType: "agent" })],
    ["an unknown provenance field", withProvenance({ trusted: true })],
    ["an unknown field", { ...item, tags: ["release"] }],
    ["a date without a time", { ...item, observedAt: "2026-09-01" }],
    ["a time without a zone", { ...item, validFrom: "2026-09-01T00:00:00" }],
    ["an evidence list that is not an array", { ...item, evidenceRefs: "pr:12" }],
  ])("with %s is refused with the given code", (_what, value) => {
    expect(refusal(ContextItemSchema, value, "invalid_context_item", "item").code).toBe(
      "invalid_context_item",
    );
  });
});

describe("a context request", () => {
  const request = guideContextRequest;

  test.each<[string, ContextRequest]>([
    ["a task of 2,000 characters", { ...request, task: chars(2_000) }],
    ["an empty task", { ...request, task: "" }],
    ["a role of 64 characters", { ...request, role: chars(64) }],
    ["the smallest budget, 512", { ...request, budgetTokens: 512 }],
    ["the largest budget, 200,000", { ...request, budgetTokens: 200_000 }],
    ["one kind", { ...request, includeKinds: ["state"] }],
    ["all five kinds", { ...request, includeKinds: [...FIVE_KINDS] }],
  ])("may have %s", (_what, value) => {
    expect(parseOrThrow(ContextRequestSchema, value, "invalid_request", "context request")).toEqual(value);
  });

  test.each<[string, unknown]>([
    ["a task of 2,001 characters", { ...request, task: chars(2_001) }],
    ["a role of 65 characters", { ...request, role: chars(65) }],
    ["a budget of 511", { ...request, budgetTokens: 511 }],
    ["a budget of 200,001", { ...request, budgetTokens: 200_001 }],
    ["a budget of 0", { ...request, budgetTokens: 0 }],
    ["a non-integer budget", { ...request, budgetTokens: 600.5 }],
    ["no kinds", { ...request, includeKinds: [] }],
    ["six kinds", { ...request, includeKinds: [...FIVE_KINDS, "state"] }],
    ["a repeated kind", { ...request, includeKinds: ["state", "knowledge", "state"] }],
    ["a run id of 129 characters", { ...request, runId: chars(129) }],
    ["a stage of 65 characters", { ...request, stage: chars(65) }],
  ])("with %s is refused as context_limits_exceeded", (_what, value) => {
    expect(refusal(ContextRequestSchema, value, "invalid_request", "context request").code).toBe(
      "context_limits_exceeded",
    );
  });

  test.each<[string, unknown]>([
    ["an empty role", { ...request, role: "" }],
    ["no task", { project: "demo", role: "planner" }],
    ["a budget given as a string", { ...request, budgetTokens: "600" }],
    ["a budget that is not a number", { ...request, budgetTokens: Number.NaN }],
    ["an infinite budget", { ...request, budgetTokens: Number.POSITIVE_INFINITY }],
    ["an unknown kind", { ...request, includeKinds: ["memory"] }],
    ["kinds given as a string", { ...request, includeKinds: "state" }],
    ["a misspelt field", { ...request, budget: 4_000 }],
    ["a project id with a slash", { ...request, project: "../other" }],
    ["a run id with white space", { ...request, runId: "run 42" }],
    ["a null request", null],
  ])("with %s is refused with the given code", (_what, value) => {
    expect(refusal(ContextRequestSchema, value, "invalid_request", "context request").code).toBe(
      "invalid_request",
    );
  });
});

describe("a recall request", () => {
  const request = guideRecallRequest;

  test.each<[string, RecallRequest]>([
    ["an empty query", { ...request, query: "" }],
    ["a query of 500 characters", { ...request, query: chars(500) }],
    ["a limit of 1", { ...request, limit: 1 }],
    ["a limit of 100", { ...request, limit: 100 }],
    ["kinds", { ...request, kinds: ["state", "evidence"] }],
  ])("may have %s", (_what, value) => {
    expect(parseOrThrow(RecallRequestSchema, value, "invalid_request", "recall request")).toEqual(value);
  });

  test.each<[string, unknown]>([
    ["a query of 501 characters", { ...request, query: chars(501) }],
    ["a limit of 0", { ...request, limit: 0 }],
    ["a limit of 101", { ...request, limit: 101 }],
    ["a non-integer limit", { ...request, limit: 2.5 }],
    ["a repeated kind", { ...request, kinds: ["state", "state"] }],
  ])("with %s is refused as context_limits_exceeded", (_what, value) => {
    expect(refusal(RecallRequestSchema, value, "invalid_request", "recall request").code).toBe(
      "context_limits_exceeded",
    );
  });

  test.each<[string, unknown]>([
    ["no query", { project: "demo" }],
    ["an unknown field", { ...request, role: "planner" }],
    ["an unknown kind", { ...request, kinds: ["memory"] }],
  ])("with %s is refused with the given code", (_what, value) => {
    expect(refusal(RecallRequestSchema, value, "invalid_request", "recall request").code).toBe(
      "invalid_request",
    );
  });
});

describe("a journal entry", () => {
  test("has its summary trimmed", () => {
    const parsed = parseOrThrow(
      JournalEntrySchema,
      { ...lessonEntry, summary: " lesson " },
      "invalid_request",
      "entry",
    );
    expect(parsed.summary).toBe("lesson");
  });

  test.each<[string, unknown, ErrorCode]>([
    ["a summary of 4,001 characters", { ...lessonEntry, summary: chars(4_001) }, "context_limits_exceeded"],
    ["65 evidence references", { ...lessonEntry, evidenceRefs: refs(65) }, "context_limits_exceeded"],
    ["a stage of 65 characters", { ...lessonEntry, stage: chars(65) }, "context_limits_exceeded"],
    ["an unknown category", { ...lessonEntry, category: "note" }, "invalid_request"],
    ["no creation time", { ...lessonEntry, createdAt: undefined }, "invalid_request"],
    ["an unknown field", { ...lessonEntry, kind: "knowledge" }, "invalid_request"],
  ])("with %s is refused as %s", (_what, value, code) => {
    expect(refusal(JournalEntrySchema, value, "invalid_request", "journal entry").code).toBe(code);
  });
});

describe("parseOrThrow and kxmErrorFromZod", () => {
  test("parseOrThrow throws the error kxmErrorFromZod makes from the same failure", () => {
    const value = { ...guideContextRequest, task: chars(2_001) };
    const result = ContextRequestSchema.safeParse(value);
    if (result.success) throw new Error("expected a failure");
    const made = kxmErrorFromZod(result.error, "invalid_request", "context request");
    const thrown = refusal(ContextRequestSchema, value, "invalid_request", "context request");
    expect(thrown.toJSON()).toEqual(made.toJSON());
  });

  test("the message names the subject, the field path and the rule, on one line", () => {
    const error = refusal(
      ContextItemSchema,
      { ...memoryItem, evidenceRefs: ["a", ""] },
      "invalid_context_item",
      "item",
    );
    expect(error.message).toBe("item evidenceRefs.1: must not be empty");
    const nested = refusal(
      ContextItemSchema,
      { ...memoryItem, provenance: { sourceType: "git", sourceRef: chars(513) } },
      "invalid_context_item",
      "item",
    );
    expect(nested.message).toBe(
      "item provenance.sourceRef: Too big: expected string to have <=512 characters",
    );
    expect(refusal(RefListSchema, ["a", "a"], "invalid_context_item", "refs").message).toBe(
      "refs (value): must not repeat a reference",
    );
  });

  test("a failure with no issue still gives the given code", () => {
    const error = kxmErrorFromZod(new z.ZodError([]), "invalid_request", "context request");
    expect(error.toJSON()).toEqual({
      code: "invalid_request",
      status: 400,
      message: "context request is invalid",
    });
  });
});

describe("error messages never contain the offending value", () => {
  // Built at run time, so no scanner mistakes the test for a leak.
  const secret = ["ghp", "_", "FAKEexample".padEnd(36, "0")].join("");
  const item = memoryItem;
  const request = guideContextRequest;

  test.each<[string, z.ZodType, unknown]>([
    [
      "a too-long summary holding a secret",
      ContextItemSchema,
      { ...item, summary: `${secret} ${chars(4_001)}` },
    ],
    [
      "a summary holding a secret, next to an unknown field",
      ContextItemSchema,
      { ...item, summary: secret, x: 1 },
    ],
    ["a secret as the kind", ContextItemSchema, { ...item, kind: secret }],
    ["a secret as the timestamp", ContextItemSchema, { ...item, observedAt: secret }],
    ["a secret in an id with white space", ContextItemSchema, { ...item, id: `${secret} x` }],
    ["a repeated secret reference", ContextItemSchema, { ...item, evidenceRefs: [secret, secret] }],
    ["a too-long secret reference", ContextItemSchema, { ...item, evidenceRefs: [secret.repeat(20)] }],
    [
      "a too-long source reference holding a secret",
      ContextItemSchema,
      { ...item, provenance: { sourceType: "git", sourceRef: secret.repeat(20) } },
    ],
    [
      "a too-long task holding a secret",
      ContextRequestSchema,
      { ...request, task: `${secret} ${chars(2_001)}` },
    ],
    ["a secret as the budget", ContextRequestSchema, { ...request, budgetTokens: secret }],
    ["a secret as a kind", ContextRequestSchema, { ...request, includeKinds: [secret] }],
    ["a too-long role made of a secret", ContextRequestSchema, { ...request, role: secret.repeat(3) }],
    ["a secret in the project id", ContextRequestSchema, { ...request, project: `${secret}/x` }],
  ])("%s", (_what, schema, value) => {
    const error = refusal(schema, value, "invalid_request");
    expect(error.message).not.toContain("FAKEexample");
    expect(JSON.stringify(error)).not.toContain("FAKEexample");
  });

  test("for any over-long summary, task or reference", () => {
    const cases = fc.record({
      field: fc.constantFrom("summary", "task", "ref"),
      text: fc.string({ minLength: 1, maxLength: 40 }),
    });
    fc.assert(
      fc.property(cases, ({ field, text }) => {
        const marked = `<<${text}>>`;
        const long = `${marked}${chars(4_001, "y")}`;
        const error =
          field === "summary"
            ? refusal(ContextItemSchema, { ...item, summary: long }, "invalid_context_item")
            : field === "task"
              ? refusal(ContextRequestSchema, { ...request, task: long }, "invalid_request")
              : refusal(ContextItemSchema, { ...item, evidenceRefs: [long] }, "invalid_context_item");
        expect(error.code).toBe("context_limits_exceeded");
        expect(error.message).not.toContain(marked);
        expect(error.message).not.toContain("yyyy");
      }),
    );
  });
});
