// The README names every export of the public entry, and its sections are in the repo's README order.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const INDEX = readFileSync(new URL("../src/index.ts", import.meta.url), "utf8");

test("every name src/index.ts exports is in the README", () => {
  const names = [...INDEX.matchAll(/^export\s*(?:type\s*)?\{([^}]*)\}\s*from/gm)].flatMap(([, list = ""]) =>
    list
      .split(",")
      .map((entry) => entry.trim().replace(/^type\s+/, ""))
      .filter((name) => name !== ""),
  );
  expect(names.length).toBeGreaterThan(10);
  expect(names.filter((name) => !README.includes(`\`${name}`))).toEqual([]);
});

test("the sections follow the README order", () => {
  expect([...README.matchAll(/^## (.+)$/gm)].map((match) => match[1])).toEqual([
    "When to use it",
    "Install",
    "Use",
    "API",
    "Compatibility",
    "Security",
  ]);
});
