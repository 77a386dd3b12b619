import { describe, expect, it } from "vitest";
import { compareCodeUnits } from "../src/index.js";

describe("compareCodeUnits", () => {
  it("orders by UTF-16 code unit, not by locale", () => {
    const words = ["b", "B", "a", "é", "e", "Z", "\u{1F600}", "\uFFFF", "", "a"];
    expect([...words].sort(compareCodeUnits)).toEqual([
      "",
      "B",
      "Z",
      "a",
      "a",
      "b",
      "e",
      "é",
      "\u{1F600}",
      "\uFFFF",
    ]);
  });

  it("is a total order: antisymmetric, zero only for equal strings", () => {
    for (const [a, b] of [
      ["x", "y"],
      ["", "a"],
      ["ab", "a"],
      ["\uD83D", "\uFFFF"],
    ] as const) {
      expect(compareCodeUnits(a, b)).toBe(-compareCodeUnits(b, a));
      expect(compareCodeUnits(a, b)).not.toBe(0);
    }
    expect(compareCodeUnits("same", "same")).toBe(0);
  });
});
