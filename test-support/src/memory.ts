// The text of `.kxm/memory` fact files (kxm.memory.v1).

/** The guide's `.kxm/memory/test-runner.md` ("Author Git memory"), byte for byte, comments included. */
export const TEST_RUNNER_MD = `---
schema: kxm.memory.v1
id: test-runner
scope: project            # agent, project, run or operator
kind: convention          # free-form label
summary: Run the test suite with npm test before every commit
provenance:
  sourceType: git
  sourceRef: docs/testing.md
authority: instruction    # instruction, evidence or promoted
confidence: verified
lifecycle: active         # only active facts are loaded
evidenceRefs: []
---
`;

/**
 * Front matter of a valid fact, key by key in file order; `overrides` replaces a key, adds one after the rest, or
 * drops one (`undefined`). A value starting with a newline is a nested block (`provenance`).
 */
export function factFields(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    schema: "kxm.memory.v1",
    id: "use-pnpm",
    scope: "project",
    kind: "convention",
    summary: "Use pnpm, not npm, in this repository",
    provenance: "\n  sourceType: git\n  sourceRef: docs/tooling.md",
    authority: "instruction",
    confidence: "verified",
    lifecycle: "active",
    ...overrides,
  };
}

/** A memory file from {@link factFields}: `key: value` lines between `---` fences, then `body`. */
export function factText(overrides: Record<string, string | undefined> = {}, body = ""): string {
  const lines = Object.entries(factFields(overrides))
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}:${value.startsWith("\n") ? "" : " "}${value}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}
