import type { ContextItem } from "@kxm/contract";

/** A valid item with sensible defaults; tests override what they are about. */
export function item(overrides: Partial<ContextItem> & { id: string }): ContextItem {
  return {
    kind: "knowledge",
    project: "demo",
    summary: `Summary of ${overrides.id}`,
    provenance: { sourceType: "git" },
    authority: "evidence",
    confidence: "probable",
    ...overrides,
  };
}

/** A current state item, as promotion mints it. */
export function currentState(
  id: string,
  stateKey: string,
  summary: string,
  extra: Partial<ContextItem> = {},
) {
  return item({
    id,
    kind: "state",
    stateKey,
    summary,
    status: "current",
    provenance: { sourceType: "peer", sourceRef: "promoted-by:kxm-admin" },
    confidence: "verified",
    ...extra,
  });
}

/** JSON bytes, the form determinism is judged in. */
export function bytes(value: unknown): string {
  return JSON.stringify(value);
}

/** The error a call throws; fails the test when it returns instead. */
export function errorOf(run: () => unknown): { code: string; status: number; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; status: number; message: string };
  }
  throw new Error("expected a KxmError");
}
