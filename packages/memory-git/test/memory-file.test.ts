import { CONTROL_PLANE_FIELDS } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import {
  checkMemoryFile,
  formatMemoryProblem,
  MEMORY_SCHEMA,
  MEMORY_SCOPES,
  type MemoryFact,
  parseMemoryFile,
} from "../src/memory-file.js";
import { expectKxmError, factText, TEST_RUNNER_MD } from "./support/memory-fixtures.js";

const FILE = ".kxm/memory/use-pnpm.md";
// A GitHub token shape the redactor knows; it must never reach a message.
const SECRET = `ghp_${"a1B2".repeat(9)}`;

function problemOf(text: string, file = FILE): string {
  const checked = checkMemoryFile(file, text);
  if (!("problem" in checked)) throw new Error("expected a problem");
  const thrown = expectKxmError(() => parseMemoryFile(file, text), "memory_invalid");
  expect(thrown.status).toBe(400);
  expect(thrown.message).toBe(formatMemoryProblem(checked.problem));
  return thrown.message;
}

describe("the guide's test-runner.md example", () => {
  it("parses into exactly the expected fact", () => {
    const fact = parseMemoryFile(".kxm/memory/test-runner.md", TEST_RUNNER_MD);
    expect(fact).toEqual({
      file: ".kxm/memory/test-runner.md",
      id: "test-runner",
      scope: "project",
      kind: "convention",
      summary: "Run the test suite with npm test before every commit",
      provenance: { sourceType: "git", sourceRef: "docs/testing.md" },
      authority: "instruction",
      confidence: "verified",
      lifecycle: "active",
      evidenceRefs: [],
      body: "",
    } satisfies MemoryFact);
  });

  it("exports the schema name and the four scopes", () => {
    expect(MEMORY_SCHEMA).toBe("kxm.memory.v1");
    expect(MEMORY_SCOPES).toEqual(["agent", "project", "run", "operator"]);
  });
});

describe("rules in the order of docs/reference/behaviour.md section 7", () => {
  // Each case breaks one rule; the expected message names the file, the field and the rule.
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ["schema missing", { schema: undefined }, "schema: is required"],
    ["schema wrong", { schema: "kxm.memory.v2" }, "schema: must be kxm.memory.v1"],
    ["id missing", { id: undefined }, "id: is required"],
    ["id upper case", { id: "Use-pnpm" }, "id: must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
    ["id double dash", { id: "use--pnpm" }, "id: must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
    ["id trailing dash", { id: "use-" }, "id: must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
    ["id leading digit", { id: "1use" }, "id: must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
    ["id a number", { id: "12" }, "id: must match ^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$"],
    ["scope missing", { scope: undefined }, "scope: is required"],
    ["scope unknown", { scope: "team" }, "scope: must be one of agent, project, run, operator"],
    ["kind missing", { kind: undefined }, "kind: is required"],
    ["kind blank", { kind: '"  "' }, "kind: must be a non-empty string"],
    ["kind a number", { kind: "3" }, "kind: must be a non-empty string"],
    ["summary missing", { summary: undefined }, "summary: is required"],
    ["summary empty", { summary: '""' }, "summary: must be a non-empty string"],
    ["summary a list", { summary: "[a, b]" }, "summary: must be a non-empty string"],
    ["provenance missing", { provenance: undefined }, "provenance.sourceType: is required"],
    ["provenance a string", { provenance: "git" }, "provenance: must be a mapping"],
    ["provenance a list", { provenance: "[git]" }, "provenance: must be a mapping"],
    ["sourceType missing", { provenance: "\n  sourceRef: docs/x.md" }, "provenance.sourceType: is required"],
    [
      "sourceType empty",
      { provenance: '\n  sourceType: ""' },
      "provenance.sourceType: must be a non-empty string",
    ],
    ["authority missing", { authority: undefined }, "authority: is required"],
    [
      "authority policy",
      { authority: "policy" },
      "authority: must be one of instruction, evidence, promoted",
    ],
    ["confidence missing", { confidence: undefined }, "confidence: is required"],
    [
      "confidence unknown",
      { confidence: "sure" },
      "confidence: must be one of verified, probable, uncertain",
    ],
    ["lifecycle missing", { lifecycle: undefined }, "lifecycle: is required"],
    [
      "lifecycle unknown",
      { lifecycle: "retired" },
      "lifecycle: must be one of active, deprecated, superseded",
    ],
    [
      "sourceRef empty",
      { provenance: '\n  sourceType: git\n  sourceRef: ""' },
      "provenance.sourceRef: must be a non-empty string",
    ],
    ["evidenceRefs a string", { evidenceRefs: "pr-12" }, "evidenceRefs: must be a list of non-empty strings"],
    [
      "evidenceRefs with a blank",
      { evidenceRefs: '[pr-12, ""]' },
      "evidenceRefs: must be a list of non-empty strings",
    ],
  ];

  it.each(cases)("%s", (_name, overrides, expected) => {
    expect(problemOf(factText(overrides))).toBe(`${FILE}: ${expected}`);
  });

  // Each pair breaks rule i and every rule after it: the report is always rule i.
  const order: Array<[string, Record<string, string>]> = [
    ["schema", { schema: "x" }],
    ["id", { id: "X" }],
    ["scope", { scope: "x" }],
    ["kind", { kind: '""' }],
    ["summary", { summary: '""' }],
    ["provenance.sourceType", { provenance: '\n  sourceType: ""' }],
    ["authority", { authority: "x" }],
    ["confidence", { confidence: "x" }],
    ["lifecycle", { lifecycle: "x" }],
    ["provenance.sourceRef", { provenance: '\n  sourceType: git\n  sourceRef: ""' }],
    ["evidenceRefs", { evidenceRefs: "x" }],
  ];
  it.each(order.map((entry, index) => [entry[0], index] as const))(
    "a file breaking %s and every later rule reports %s",
    (field, index) => {
      const broken = Object.assign({}, ...order.slice(index).map((entry) => entry[1]));
      // The sourceRef rule shares the provenance key with sourceType: keep the earlier breakage when both apply.
      if (index <= 5) broken.provenance = '\n  sourceType: ""\n  sourceRef: ""';
      expect(problemOf(factText(broken))).toMatch(new RegExp(`^${FILE}: ${field.replace(".", "\\.")}: `));
    },
  );

  it("checks the mapping first, then control-plane fields, then the schema", () => {
    expect(problemOf("---\n- token: x\n---\n")).toBe(`${FILE}: (front matter): must be a YAML mapping`);
    const error = expectKxmError(
      () => parseMemoryFile(FILE, factText({ schema: "wrong", token: "x" })),
      "context_authority_violation",
    );
    expect(error.status).toBe(403);
  });
});

describe("control-plane fields", () => {
  it.each(CONTROL_PLANE_FIELDS)("refuses a top-level %s with 403 context_authority_violation", (field) => {
    const text = factText({ [field]: SECRET });
    const error = expectKxmError(() => parseMemoryFile(FILE, text), "context_authority_violation");
    expect(error.status).toBe(403);
    expect(error.message).toBe(`${FILE}: memory files may not carry the control-plane field "${field}"`);
    expect(error.message).not.toContain(SECRET);
    expect(checkMemoryFile(FILE, text)).toEqual({
      problem: { file: FILE, field, rule: "control-plane field is refused" },
    });
  });

  it("allows a control-plane name below the top level and unknown documentation keys", () => {
    const text = factText({ title: "Package manager", tags: "[tooling]", owner: "platform" }).replace(
      "sourceType: git",
      "sourceType: git\n  token: not-a-grant",
    );
    expect(parseMemoryFile(FILE, text).id).toBe("use-pnpm");
  });
});

describe("front matter", () => {
  it("tolerates a byte order mark", () => {
    expect(parseMemoryFile(FILE, `\uFEFF${factText({}, "Body\n")}`)).toMatchObject({
      id: "use-pnpm",
      body: "Body",
    });
  });

  it("tolerates CRLF line endings, in the front matter and in block scalars", () => {
    const text = factText({ summary: "|\n  Use pnpm,\n  not npm" }, "\nLine one\nLine two\n").replace(
      /\n/g,
      "\r\n",
    );
    const fact = parseMemoryFile(FILE, text);
    expect(fact.summary).toBe("Use pnpm,\nnot npm");
    expect(fact.body).toBe("Line one\r\nLine two");
  });

  it("keeps the body without its opening blank lines and closing white space", () => {
    expect(parseMemoryFile(FILE, factText({}, "\n\n# Why\n\n    indented code\nmore\n\n")).body).toBe(
      "# Why\n\n    indented code\nmore",
    );
    expect(parseMemoryFile(FILE, factText({}, "")).body).toBe("");
    expect(parseMemoryFile(FILE, factText({}).replace(/\n$/, "")).body).toBe("");
  });

  it("does not close the block on an indented --- inside a block scalar", () => {
    const fact = parseMemoryFile(FILE, factText({ summary: "|\n  first\n  ---\n  last" }));
    expect(fact.summary).toBe("first\n---\nlast");
  });

  it.each([
    ["no front matter", "# Just Markdown\n", "must open the file: --- then YAML then ---"],
    ["an empty file", "", "must open the file: --- then YAML then ---"],
    ["a blank line before the fence", `\n${factText()}`, "must open the file: --- then YAML then ---"],
    [
      "front matter after a heading",
      `# Title\n\n${factText()}`,
      "must open the file: --- then YAML then ---",
    ],
    ["an unclosed block", "---\nschema: kxm.memory.v1\nid: x\n", "opens with --- but is never closed by ---"],
    [
      "an unclosed block, CRLF",
      "---\r\nschema: kxm.memory.v1\r\n",
      "opens with --- but is never closed by ---",
    ],
  ])("refuses %s", (_name, text, rule) => {
    expect(problemOf(text)).toBe(`${FILE}: (front matter): ${rule}`);
  });

  it.each([
    ["a list", "---\n- a\n- b\n---\n"],
    ["a scalar", "---\njust text\n---\n"],
    ["empty", "---\n---\n"],
    ["a number", "---\n42\n---\n"],
  ])("refuses YAML that is %s", (_name, text) => {
    expect(problemOf(text)).toBe(`${FILE}: (front matter): must be a YAML mapping`);
  });

  it("refuses duplicate keys, naming the line but not the value", () => {
    const text = factText({ kind: `convention\nkind: ${SECRET}` });
    const message = problemOf(text);
    expect(message).toBe(`${FILE}: (front matter): has a duplicate key (line 6)`);
    expect(message).not.toContain(SECRET);
  });

  it("refuses YAML that does not parse, naming the error code and line but no source text", () => {
    const message = problemOf(factText({ summary: `[${SECRET}` }));
    expect(message).toMatch(
      new RegExp(`^${FILE}: \\(front matter\\): is not valid YAML \\([A-Z_]+, line \\d+\\)$`),
    );
    expect(message).not.toContain(SECRET);
    expect(problemOf("---\na: *nowhere\n---\n")).toBe(
      `${FILE}: (front matter): is not valid YAML (aliases do not resolve)`,
    );
  });
});

describe("messages", () => {
  it("never quote a field's value", () => {
    for (const overrides of [
      { schema: SECRET },
      { id: SECRET },
      { scope: SECRET },
      { kind: `[${SECRET}]` },
      { authority: SECRET },
      { confidence: SECRET },
      { lifecycle: SECRET },
      { evidenceRefs: SECRET },
      { provenance: `\n  sourceType: [${SECRET}]` },
    ]) {
      const message = problemOf(factText(overrides));
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain("ghp_");
    }
  });

  it("format as <file>: <field>: <rule> on one line", () => {
    expect(formatMemoryProblem({ file: "a.md", field: "id", rule: "is\nrequired" })).toBe(
      "a.md: id: is required",
    );
  });
});

describe("values", () => {
  it("redacts secrets in the summary and the source reference", () => {
    const fact = parseMemoryFile(
      FILE,
      factText({
        summary: `Deploy with ${SECRET} now`,
        provenance: `\n  sourceType: human\n  sourceRef: "docs/x.md?t=${SECRET}"`,
      }),
    );
    expect(fact.summary).toBe("Deploy with [redacted] now");
    expect(fact.provenance).toEqual({ sourceType: "human", sourceRef: "docs/x.md?t=[redacted]" });
  });

  it("keeps evidence refs and reads YAML null as absent for optional fields", () => {
    expect(parseMemoryFile(FILE, factText({ evidenceRefs: "[pr-12, docs/x.md]" })).evidenceRefs).toEqual([
      "pr-12",
      "docs/x.md",
    ]);
    const fact = parseMemoryFile(
      FILE,
      factText({ evidenceRefs: "", provenance: "\n  sourceType: git\n  sourceRef:" }),
    );
    expect(fact.evidenceRefs).toEqual([]);
    expect(fact.provenance).toEqual({ sourceType: "git" });
  });

  it("accepts every scope and authority the schema allows", () => {
    for (const scope of MEMORY_SCOPES) {
      for (const authority of ["instruction", "evidence", "promoted"]) {
        expect(parseMemoryFile(FILE, factText({ scope, authority }))).toMatchObject({ scope, authority });
      }
    }
  });
});

describe("expiresAt, reviewBy and check (issue 20)", () => {
  it("reads a date as 00:00 UTC that day, a date-time as written, and a check with its defaults", () => {
    const fact = parseMemoryFile(
      FILE,
      factText({
        expiresAt: "2026-12-31",
        reviewBy: "2026-12-01T09:30:00+01:00",
        check: '\n  command: ["git", "rev-parse", "HEAD"]',
      }),
    );
    expect(fact.expiresAt).toBe("2026-12-31T00:00:00Z");
    expect(fact.reviewBy).toBe("2026-12-01T09:30:00+01:00");
    expect(fact.check).toEqual({
      command: ["git", "rev-parse", "HEAD"],
      timeoutSeconds: 30,
      onFailure: "report",
    });
  });

  it.each([
    [
      { expiresAt: "tomorrow" },
      "expiresAt: must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone",
    ],
    [
      { reviewBy: "2026-12-01T00:00:00" },
      "reviewBy: must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone",
    ],
    [{ check: " [true]" }, "check: must be a mapping"],
    [{ check: "\n  timeoutSeconds: 5" }, "check.command: is required"],
    [
      { check: "\n  command: []" },
      "check.command: must be a list of 1 to 64 non-empty strings (the program, then its arguments)",
    ],
    [
      { check: '\n  command: ["true"]\n  timeoutSeconds: 601' },
      "check.timeoutSeconds: must be a whole number of seconds from 1 to 600",
    ],
    [
      { check: '\n  command: ["true"]\n  onFailure: ignore' },
      "check.onFailure: must be one of report, withhold",
    ],
  ])("refuses %o", (overrides, rule) => {
    expect(problemOf(factText(overrides))).toBe(`${FILE}: ${rule}`);
  });

  it("a fact without the keys has none of them", () => {
    const fact = parseMemoryFile(FILE, factText());
    expect(
      Object.hasOwn(fact, "expiresAt") || Object.hasOwn(fact, "reviewBy") || Object.hasOwn(fact, "check"),
    ).toBe(false);
  });
});
