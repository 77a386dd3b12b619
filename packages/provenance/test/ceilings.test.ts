import { type Authority, ORIGINS, type Origin } from "@kxm/contract";
import { describe, expect, it } from "vitest";
import {
  assertNoControlPlaneFields,
  authorityRank,
  ceilingFor,
  findControlPlaneField,
  isAuthorityAbove,
  strongestAuthority,
  weakerAuthority,
} from "../src/index.js";
import { expectKxmError } from "./support.js";

describe("authority order", () => {
  it("ranks policy > instruction > evidence > hypothesis", () => {
    expect(
      ["policy", "instruction", "evidence", "hypothesis"].map((a) => authorityRank(a as Authority)),
    ).toEqual([3, 2, 1, 0]);
  });

  it.each([
    ["policy", "instruction", true],
    ["instruction", "evidence", true],
    ["evidence", "hypothesis", true],
    ["policy", "hypothesis", true],
    ["evidence", "evidence", false],
    ["hypothesis", "evidence", false],
    ["instruction", "policy", false],
  ] as const)("isAuthorityAbove(%s, %s) is %s", (a, b, expected) => {
    expect(isAuthorityAbove(a, b)).toBe(expected);
  });

  it("picks the weaker and the strongest authority", () => {
    expect(weakerAuthority("evidence", "policy")).toBe("evidence");
    expect(weakerAuthority("evidence", "hypothesis")).toBe("hypothesis");
    expect(strongestAuthority(["hypothesis", "instruction", "evidence"])).toBe("instruction");
    expect(strongestAuthority([])).toBeUndefined();
  });

  it("refuses an unknown authority with 400 invalid_context_item instead of ranking it", () => {
    expectKxmError(() => authorityRank("root" as Authority), "invalid_context_item", 400);
  });
});

describe("ceilingFor", () => {
  const expected: Record<Origin, Authority> = {
    human: "policy",
    workflow: "policy",
    git: "instruction",
    peer: "evidence",
    tool: "evidence",
    external: "evidence",
    derived: "evidence",
  };

  it.each(ORIGINS)("gives the ceiling of origin %s", (origin) => {
    expect(ceilingFor(origin)).toBe(expected[origin]);
  });

  it("refuses an unknown origin with 400 invalid_context_item", () => {
    expectKxmError(() => ceilingFor("admin" as Origin), "invalid_context_item", 400);
    expectKxmError(() => ceilingFor("toString" as Origin), "invalid_context_item", 400);
  });
});

describe("control-plane fields", () => {
  it("finds the first field in the contract's order, by own key only", () => {
    expect(findControlPlaneField({ token: 1, permissions: 1 })).toBe("permissions");
    expect(findControlPlaneField({ summary: "tools are fine in text" })).toBeUndefined();
    expect(findControlPlaneField(Object.create({ token: "inherited" }) as object)).toBeUndefined();
  });

  it("refuses memory files with their own subject in the message", () => {
    const error = expectKxmError(
      () => assertNoControlPlaneFields({ apiKey: "x" }, "memory files"),
      "context_authority_violation",
      403,
    );
    expect(error.message).toBe('memory files may not carry the control-plane field "apiKey"');
  });
});
