import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as contract from "@kxm/contract";
import { describe, expect, test } from "vitest";

const README = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const INDEX = readFileSync(fileURLToPath(new URL("../src/index.ts", import.meta.url)), "utf8");

/** Every name `src/index.ts` exports, values and types alike. */
function exportedNames(): string[] {
  const names: string[] = [];
  for (const [, list = ""] of INDEX.matchAll(/^export\s*\{([^}]*)\}\s*from/gm)) {
    for (const entry of list.split(",")) {
      const name = entry
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop();
      if (name) names.push(name);
    }
  }
  return names;
}

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start === -1) return "";
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

describe("the README", () => {
  test("has the sections in the fixed order", () => {
    const headings = [...README.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading);
    expect(headings).toEqual([
      "What it is",
      "When to use it",
      "Install",
      "Use",
      "API",
      "Compatibility",
      "Security",
    ]);
  });

  test("gives every export one line in API, and no line to a name that is not exported", () => {
    const documented = [...section("API").matchAll(/^- `([A-Za-z_$][\w$]*)`: \S/gm)].map(([, name]) => name);
    expect([...documented].sort()).toEqual(exportedNames().sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  test("the export list it is checked against is the package's real surface, without export *", () => {
    expect(INDEX).not.toMatch(/export\s*\*/);
    const values = Object.keys(contract).sort();
    expect(values.every((name) => exportedNames().includes(name))).toBe(true);
    expect(values.length).toBeGreaterThan(0);
  });

  test("states Node 20.19, ESM only and zod 4 under Compatibility", () => {
    const compatibility = section("Compatibility");
    expect(compatibility).toContain("20.19");
    expect(compatibility).toContain("ESM only");
    expect(compatibility).toContain("zod 4");
  });
});
