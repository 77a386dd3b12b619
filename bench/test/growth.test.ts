import { describe, expect, test } from "vitest";
import { growthExponent, growthTable } from "../src/report/growth.mjs";

const stats = (p50: number) => ({ n: 10, p50, p95: p50, p99: 2 * p50 });

/** One system's figures at one size, shaped as the workers report them; cost = base · n^k for each figure. */
function kxmAt(size: number, k: number) {
  const f = (base: number) => base * (size / 1000) ** k;
  return {
    system: "kxm",
    buildMs: f(10),
    update: { p50Us: 5 },
    assemble: stats(f(1)),
    assembleShort: stats(f(0.1)),
    recall: stats(f(0.2)),
    indexBytesPerItem: 4000,
  };
}

describe("growth with the pool", () => {
  test("the exponent of cost ∝ n^k between two sizes", () => {
    expect(growthExponent(1, 10, 1000, 10_000)).toBeCloseTo(1, 12);
    expect(growthExponent(2, 2, 1000, 100_000)).toBe(0);
    expect(growthExponent(1, 100, 1000, 10_000)).toBeCloseTo(2, 12);
    expect(growthExponent(Number.NaN, 1, 1000, 10_000)).toBeNaN();
    expect(growthExponent(0, 1, 1000, 10_000)).toBeNaN();
  });

  test("one row per system with an exponent per step; skipped phases and one size give n/a or nothing", () => {
    const sizes = [10_000, 1000, 100_000].map((size) => ({
      size,
      kxm: kxmAt(size, 0.5),
      peers: [
        {
          system: "fts5",
          buildMs: 2 * size,
          long: size === 100_000 ? { skipped: "too slow" } : stats(size / 100),
          short: stats(size / 1000),
          recall: stats(1),
          bytesPerItem: 2000,
        },
      ],
    }));
    const label = (system: string) => (system === "kxm" ? "KXM" : "SQLite FTS5");
    const report: string = growthTable(sizes, label);
    expect(report).toContain("(1,000 → 10,000, 10,000 → 100,000)");
    // KXM grows as n^0.5 in time; its index bytes per item are constant, so the whole index grows as n.
    expect(report).toContain(
      "| KXM | 0.50 / 0.50 | 0.50 / 0.50 | 0.50 / 0.50 | 0.50 / 0.50 | 0.50 / 0.50 | 1.00 / 1.00 |",
    );
    expect(report).toContain(
      "| SQLite FTS5 | 1.00 / 1.00 | 1.00 / n/a | 1.00 / n/a | 1.00 / 1.00 | 0.00 / 0.00 | 1.00 / 1.00 |",
    );
    expect(growthTable(sizes.slice(0, 1), label)).toBe("");
  });
});
