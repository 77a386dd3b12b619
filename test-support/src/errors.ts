// Expecting KxmErrors: the catalogue code, optionally the status, and a message on one line.
import { type ErrorCode, isKxmError, type KxmError } from "@kxm/contract";
import { expect } from "vitest";

function checked(caught: unknown, code: ErrorCode, status: number | undefined): KxmError {
  expect(caught, "expected a KxmError").toBeDefined();
  expect(isKxmError(caught), String(caught)).toBe(true);
  const error = caught as KxmError;
  if (status === undefined) expect(error.code).toBe(code);
  else expect({ code: error.code, status: error.status }).toEqual({ code, status });
  expect(error.message).not.toMatch(/\n/);
  return error;
}

/** Runs `fn`, expecting it to throw a KxmError with `code` (and `status`, if given); returns it. */
export function expectKxmError(fn: () => unknown, code: ErrorCode, status?: number): KxmError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  return checked(caught, code, status);
}

/**
 * Awaits `promise` (or calls `fn` and awaits what it returns), expecting a KxmError with `code` (and `status`, if
 * given); returns it.
 */
export async function expectKxmRejection(
  promise: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  status?: number,
): Promise<KxmError> {
  let caught: unknown;
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  return checked(caught, code, status);
}
