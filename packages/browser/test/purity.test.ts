// The pure modules of @kxm/browser stay pure by design (the repo's no-clock lint rule covers only the pure
// packages): no Node built-in, no I/O library, no clock, no random source, no process, no network.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const PURE = ["config", "takeover", "sweep", "urls", "redact", "schema", "types"];
const ALLOWED_IMPORTS = new Set(["@kxm/contract", "zod"]);

test.each(PURE)("src/%s.ts imports nothing with side effects and reads no clock", (name) => {
  const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), "utf8");
  const imports = [...source.matchAll(/^import[^"]*"([^"]+)";/gm)].map((match) => match[1] ?? "");
  expect(imports.filter((spec) => !spec.startsWith("./") && !ALLOWED_IMPORTS.has(spec))).toEqual([]);
  const code = source.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
  for (const forbidden of [
    /Date\.now/,
    /new Date\(\)/,
    /Math\.random/,
    /performance\./,
    /process\./,
    /fetch\(/,
    /setTimeout/,
  ]) {
    expect(code, `${name}.ts: ${forbidden}`).not.toMatch(forbidden);
  }
});

test("the relative imports of the pure modules are pure modules too", () => {
  for (const name of PURE) {
    const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), "utf8");
    for (const [, spec = ""] of source.matchAll(/^import[^"]*"\.\/([^"]+)\.js";/gm)) {
      expect(PURE, `${name}.ts imports ./${spec}.js`).toContain(spec);
    }
  }
});
