import { type ContextItem, type ErrorCode, isKxmError } from "@kxm/contract";
import { expect } from "vitest";

/** Runs `fn`, expecting a KxmError with this code and status; returns it for further checks. */
export function expectKxmError(fn: () => unknown, code: ErrorCode, status: number): Error {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, "expected a KxmError to be thrown").toBeDefined();
  expect(isKxmError(caught), String(caught)).toBe(true);
  const error = caught as Error & { code: string; status: number };
  expect({ code: error.code, status: error.status }).toEqual({ code, status });
  expect(error.message).not.toMatch(/\n/);
  return error;
}

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
