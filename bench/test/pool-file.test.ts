import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { generatePool } from "../src/pool.mjs";
import { loadedCopy, poolFingerprint, readPoolFile, writePoolFile } from "../src/pool-file.mjs";

describe("a pool item by item", () => {
  const pool = generatePool(200);
  const dir = mkdtempSync(join(tmpdir(), "kxm-pool-file-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the fingerprint is the SHA-256 of the whole pool's JSON, as it was taken before", () => {
    const whole = createHash("sha256").update(JSON.stringify(pool)).digest("hex").slice(0, 16);
    expect(poolFingerprint(pool)).toBe(whole);
    expect(poolFingerprint([])).toBe(createHash("sha256").update("[]").digest("hex").slice(0, 16));
    expect(poolFingerprint(pool.slice(1))).not.toBe(whole);
  });

  test("a loaded copy equals the pool and shares none of its objects", () => {
    const copy = loadedCopy(pool);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(pool));
    expect(copy.some((item, i) => item === pool[i])).toBe(false);
  });

  test("the pool file reads back byte for byte, non-ASCII summaries included", () => {
    const file = join(dir, "pool.jsonl");
    writePoolFile(file, pool);
    expect(pool.some((item) => [...item.summary].some((c) => c.charCodeAt(0) > 127))).toBe(true);
    expect(JSON.stringify(readPoolFile(file))).toBe(JSON.stringify(pool));
    const empty = join(dir, "empty.jsonl");
    writePoolFile(empty, []);
    expect(readPoolFile(empty)).toEqual([]);
  });

  test("a pool file cut short is refused, never read as a smaller pool", () => {
    const file = join(dir, "cut.jsonl");
    writePoolFile(file, pool);
    truncateSync(file, 1_000);
    expect(() => readPoolFile(file)).toThrow(`${file} does not end with a newline: it was not written whole`);
    writeFileSync(file, `${JSON.stringify(pool[0])}\n{"id":`);
    expect(() => readPoolFile(file)).toThrow("it was not written whole");
  });
});
