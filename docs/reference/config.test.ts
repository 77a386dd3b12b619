// Every environment variable an app reads is documented in docs/reference/config.md.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const doc = readFileSync(new URL("config.md", import.meta.url), "utf8");
const documented = new Set([...doc.matchAll(/^### (\w+)/gm)].map((match) => match[1]));
const envModules = [
  "../../apps/cli/src/env.ts",
  "../../apps/hub/src/env.ts",
  "../../packages/browser/src/env.ts",
];

test.each(envModules)("every variable %s reads is documented", (module) => {
  const source = readFileSync(new URL(module, import.meta.url), "utf8");
  const read = [...source.matchAll(/^\s+((?:KXM|STEEL)_[A-Z_]+|USE_PASS_CLI):/gm)].map((match) => match[1]);
  expect(read.length).toBeGreaterThan(0);
  expect(read.filter((name) => !documented.has(name))).toEqual([]);
});
