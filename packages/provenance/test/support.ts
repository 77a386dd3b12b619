import type { ContextItem } from "@kxm/contract";

// expectKxmError(fn, code, status) is the workspace's shared one.
export { expectKxmError } from "@kxm/test-support";

/** A valid raw item; override any field. */
export function rawItem(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "ev_1",
    kind: "evidence",
    project: "demo",
    summary: "The flaky Playwright gates timed out on CI",
    provenance: { sourceType: "tool", sourceRef: "ci:run-42" },
    authority: "evidence",
    confidence: "probable",
    ...overrides,
  };
}

/** A parsed-looking item for lineages (not run through parseContextItem). */
export function item(id: string, overrides: Partial<ContextItem> = {}): ContextItem {
  return {
    id,
    kind: "evidence",
    project: "demo",
    summary: `Evidence ${id}`,
    provenance: { sourceType: "tool", sourceRef: `tool:${id}` },
    authority: "evidence",
    confidence: "verified",
    ...overrides,
  };
}
