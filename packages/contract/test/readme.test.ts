import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as contract from "@kxm/contract";
import * as client from "@kxm/contract/client";
import { describe, expect, test } from "vitest";

const README = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const INDEX = readFileSync(fileURLToPath(new URL("../src/index.ts", import.meta.url)), "utf8");
const CLIENT = readFileSync(fileURLToPath(new URL("../src/client.ts", import.meta.url)), "utf8");
/** Where the API section turns to the `@kxm/contract/client` subpath. */
const CLIENT_HEADING = "The hub client, from `@kxm/contract/client`";

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

/** Every name `src/client.ts` (the `@kxm/contract/client` subpath) declares as an export. */
function clientNames(): string[] {
  return [
    ...CLIENT.matchAll(
      /^export\s+(?:declare\s+)?(?:const|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm,
    ),
  ].map(([, name = ""]) => name);
}

function documentedNames(text: string): string[] {
  return [...text.matchAll(/^- `([A-Za-z_$][\w$]*)`: \S/gm)].map(([, name = ""]) => name);
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
    const api = section("API");
    const split = api.indexOf(CLIENT_HEADING);
    expect(split).toBeGreaterThan(0);
    const root = documentedNames(api.slice(0, split));
    const subpath = documentedNames(api.slice(split));
    expect([...root].sort()).toEqual(exportedNames().sort());
    expect([...subpath].sort()).toEqual(clientNames().sort());
    const documented = [...root, ...subpath];
    expect(new Set(documented).size).toBe(documented.length);
  });

  test("the client subpath's list is what it exports, and the root entry exports none of it", () => {
    const values = Object.keys(client).sort();
    expect(values).toEqual(["createHubClient", "DEFAULT_MAX_RETRY_AFTER_MS", "unreachableReason"].sort());
    expect(values.every((name) => clientNames().includes(name))).toBe(true);
    for (const name of clientNames()) expect(exportedNames()).not.toContain(name);
    expect(Object.keys(contract).filter((name) => values.includes(name))).toEqual([]);
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
