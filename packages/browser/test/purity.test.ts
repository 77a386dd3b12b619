// The pure modules of @kxm/browser stay pure by design: biome.json's no-clock override refuses a clock, a random
// source, the process, fetch and timers in them (as in the pure packages); this test refuses what that rule cannot
// see, an import of a Node built-in, an I/O library or an impure module of this package.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const PURE = ["config", "takeover", "sweep", "urls", "redact", "schema", "types"];
const ALLOWED_IMPORTS = new Set(["@kxm/contract", "zod"]);

test.each(PURE)("src/%s.ts imports nothing with side effects", (name) => {
  const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), "utf8");
  const imports = [...source.matchAll(/^import[^"]*"([^"]+)";/gm)].map((match) => match[1] ?? "");
  expect(imports.filter((spec) => !spec.startsWith("./") && !ALLOWED_IMPORTS.has(spec))).toEqual([]);
});

test("the relative imports of the pure modules are pure modules too", () => {
  for (const name of PURE) {
    const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), "utf8");
    for (const [, spec = ""] of source.matchAll(/^import[^"]*"\.\/([^"]+)\.js";/gm)) {
      expect(PURE, `${name}.ts imports ./${spec}.js`).toContain(spec);
    }
  }
});
