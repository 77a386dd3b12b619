import { describe, expect, test } from "vitest";
import { checkItems, generatePool } from "../src/pool.mjs";

describe("the bench's pools are admissible", () => {
  const pool = generatePool(300);

  test("a generated pool is what the admission path makes of it", () => {
    expect(() => checkItems(pool)).not.toThrow();
  });

  test("an item admission refuses, or changes, or a repeated id, stops the bench before it measures", () => {
    const [first] = pool;
    if (first === undefined) throw new Error("empty pool");
    const current = { ...first, kind: "knowledge" as const, status: "current" as const };
    delete (current as { stateKey?: string }).stateKey;
    expect(() => checkItems([current])).toThrow(
      `generated item ${first.id} is refused at admission: context item status: only state items may be current`,
    );
    // Redaction rewrites a token-shaped secret, so the item is not in its admitted form.
    const secret = { ...first, summary: `${first.summary} token ghp_${"a".repeat(36)}` };
    expect(() => checkItems([secret])).toThrow(`generated item ${first.id} is not in its admitted form`);
    const reordered = Object.fromEntries(Object.entries(first).reverse()) as typeof first;
    expect(() => checkItems([reordered])).toThrow(`generated item ${first.id} is not in its admitted form`);
    expect(() => checkItems([first, first])).toThrow(`duplicate id ${first.id}`);
  });
});
