import { readFileSync } from "node:fs";
import { LIMITS, TOOL_INPUT_SCHEMAS, type ToolName } from "@kxm/contract";
import { describe, expect, test } from "vitest";
import { z } from "zod";

// docs/reference/mcp-tools.md against the contract: each tool's argument table names exactly the schema's
// arguments, and every range it states ("1 to 32", "up to 2,000") is the one the schema enforces, checked by
// parsing values at and just past each bound (so a limit the JSON Schema does not show, such as a trimmed length,
// is checked too).

const page = readFileSync(new URL("../../../docs/reference/mcp-tools.md", import.meta.url), "utf8");
const TOOLS = Object.keys(TOOL_INPUT_SCHEMAS) as ToolName[];

interface Row {
  tool: ToolName;
  arg: string;
  type: string;
}

function rows(tool: ToolName): Row[] {
  const start = page.indexOf(`## \`${tool}\``);
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map((match) => ({
    tool,
    arg: match[1] as string,
    type: (match[2] as string).trim(),
  }));
}

const number = (text: string) => Number(text.replaceAll(",", ""));

/** The bounds a type cell states: `A to B`, or `up to B`. */
function bounds(type: string): { min?: number; max: number } | undefined {
  const range = /(\d[\d,]*) to (\d[\d,]*)/.exec(type);
  if (range) return { min: number(range[1] as string), max: number(range[2] as string) };
  const upTo = /up to (\d[\d,]*)/.exec(type);
  return upTo ? { max: number(upTo[1] as string) } : undefined;
}

/** A value of size `n` for a field of JSON Schema type `kind`. */
function sized(kind: string, n: number): unknown {
  if (kind === "integer" || kind === "number") return n;
  if (kind === "array") return Array.from({ length: n }, (_, i) => `ref:${i}`);
  return "x".repeat(n);
}

const ROWS = TOOLS.flatMap(rows);

/**
 * Bounds the tool's schema leaves to the hub, which applies them at admission with their own codes (a summary over
 * 4,000 characters once trimmed is `context_limits_exceeded`, no evidence is `invalid_state_proposal`): the page
 * must state the contract's limit, which the hub's tests check it applies.
 */
const ADMISSION_BOUNDS: Record<string, { min?: number; max?: number }> = {
  "kxm_promote.summary": { max: LIMITS.summaryChars },
  "kxm_promote.evidenceRefs": { min: LIMITS.minStateEvidenceRefs },
};

describe("docs/reference/mcp-tools.md says what the contract's tool schemas enforce", () => {
  test.each(TOOLS)("%s: its table names exactly the schema's arguments", (tool) => {
    const documented = rows(tool).map((row) => row.arg);
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.sort()).toEqual(Object.keys(TOOL_INPUT_SCHEMAS[tool].shape).sort());
  });

  const RANGED = ROWS.flatMap((row) => {
    const stated = bounds(row.type);
    return stated === undefined ? [] : [{ ...row, ...stated, label: `${row.tool} ${row.arg}: ${row.type}` }];
  });

  test("the tables state ranges for the sized arguments", () => {
    expect(RANGED.map((row) => `${row.tool}.${row.arg}`)).toEqual(
      expect.arrayContaining(["kxm_context.task", "kxm_context.budget", "kxm_promote.evidenceRefs"]),
    );
  });

  test.each(RANGED)("$label", ({ tool, arg, min, max }) => {
    const admission = ADMISSION_BOUNDS[`${tool}.${arg}`] ?? {};
    if (admission.max !== undefined) expect(max, "the limit the hub applies").toBe(admission.max);
    if (admission.min !== undefined) expect(min, "the limit the hub applies").toBe(admission.min);
    const field = (TOOL_INPUT_SCHEMAS[tool].shape as Record<string, z.ZodType>)[arg] as z.ZodType;
    const kind = String(
      (z.toJSONSchema(field, { io: "input", unrepresentable: "any" }) as { type?: unknown }).type,
    );
    expect(field.safeParse(sized(kind, max)).success, `${max} is allowed`).toBe(true);
    if (admission.max === undefined) {
      expect(field.safeParse(sized(kind, max + 1)).success, `${max + 1} is refused`).toBe(false);
    }
    if (min !== undefined) {
      expect(field.safeParse(sized(kind, min)).success, `${min} is allowed`).toBe(true);
      if (min > 0 && admission.min === undefined)
        expect(field.safeParse(sized(kind, min - 1)).success, `${min - 1} is refused`).toBe(false);
    }
  });
});
