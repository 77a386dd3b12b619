import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isKxmError } from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { activeFacts } from "../src/load.js";
import type { MemoryFact } from "../src/memory-file.js";
import {
  INSTRUCTION_FILES,
  MEMORY_END,
  MEMORY_START,
  planSync,
  renderMemoryBlock,
  syncInstructionFiles,
} from "../src/sync.js";
import { put, snapshot, tempRoot } from "./support/memory-fixtures.js";

// --- generators -------------------------------------------------------------------------------------------------

const DAMAGED = [
  "<!-- kxm:memory:start-->",
  "<!--kxm:memory:end -->",
  "<!-- kxm:memory:start",
  "kxm:memory:end -->",
  "<!-- KXM:memory:start -->",
  "<!-- kxm:memory:end --",
  "<!-- kxm:memory -->",
];

// Characters that matter to the planner (line endings, white space, marker pieces) mixed with any grapheme.
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(" ", "\t", "\r", "\n", "\r\n", "\uFEFF", "\u00a0") },
  { weight: 1, arbitrary: fc.constantFrom("<!--", "-->", "kxm:memory:", "start", "end", "```") },
);
const textLine = fc.string({ unit, maxLength: 24 });

type Token =
  | { kind: "text"; text: string }
  | { kind: "start" }
  | { kind: "end" }
  | { kind: "damaged"; text: string };

const token: fc.Arbitrary<Token> = fc.oneof(
  { weight: 6, arbitrary: textLine.map((text): Token => ({ kind: "text", text })) },
  { weight: 1, arbitrary: fc.constant<Token>({ kind: "start" }) },
  { weight: 1, arbitrary: fc.constant<Token>({ kind: "end" }) },
  { weight: 1, arbitrary: fc.constantFrom(...DAMAGED).map((text): Token => ({ kind: "damaged", text })) },
);

// Mostly one good pair (sometimes with extra or reordered markers spliced in), sometimes no marker at all,
// sometimes free-form token soup.
const tokens: fc.Arbitrary<Token[]> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.array(token, { maxLength: 4 }),
        fc.array(token, { maxLength: 4 }),
        fc.array(token, { maxLength: 4 }),
        fc.boolean(),
      )
      .map(([before, inside, after, clean]) => {
        const strip = (list: Token[]) =>
          clean ? list.filter((t) => t.kind === "text" || t.kind === "damaged") : list;
        return [
          ...strip(before),
          { kind: "start" },
          ...strip(inside),
          { kind: "end" },
          ...strip(after),
        ] as Token[];
      }),
  },
  {
    weight: 2,
    arbitrary: fc.array(
      token.filter((t) => t.kind !== "start" && t.kind !== "end"),
      { maxLength: 8 },
    ),
  },
  { weight: 2, arbitrary: fc.array(token, { maxLength: 10 }) },
);

const lineEnding = fc.oneof(
  fc.constant<"lf" | "crlf" | "mixed">("lf"),
  fc.constant<"lf" | "crlf" | "mixed">("crlf"),
  fc.constant<"lf" | "crlf" | "mixed">("mixed"),
);

/** One instruction file's text: tokens joined by line endings (markers sometimes inline), then a random tail. */
const fileText: fc.Arbitrary<string> = fc
  .tuple(
    tokens,
    lineEnding,
    fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
    fc.constantFrom("", "\n", "\r\n", "  \n\n", " "),
  )
  .map(([list, style, coin, tail]) => {
    let text = "";
    list.forEach((t, index) => {
      const piece = t.kind === "start" ? MEMORY_START : t.kind === "end" ? MEMORY_END : t.text;
      if (index > 0) {
        const crlf = style === "crlf" || (style === "mixed" && coin[index % coin.length]);
        // A marker is glued to the previous text now and then: markers count anywhere, not only on their own line.
        const inline =
          t.kind !== "text" && coin[(index + 7) % coin.length] && coin[(index + 3) % coin.length];
        text += inline ? " " : crlf ? "\r\n" : "\n";
      }
      text += piece;
    });
    return text + tail;
  });

const summary = fc.oneof(
  // Never blank: a blank summary is a malformed memory file, which the file-based property does not exercise.
  { weight: 4, arbitrary: fc.string({ unit, minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "") },
  { weight: 1, arbitrary: fc.constantFrom(`has ${MEMORY_END} inside`, `${MEMORY_START}`, "line\r\nbreak") },
);

const factArb: fc.Arbitrary<MemoryFact> = fc
  .record({
    id: fc.stringMatching(/^[a-z][a-z0-9]{0,6}(?:[-_][a-z0-9]{1,4}){0,2}$/),
    scope: fc.constantFrom("agent", "project", "run", "operator" as const),
    kind: fc.constantFrom("convention", "learning", "a <!-- b", "x\ny"),
    summary,
    lifecycle: fc.constantFrom("active", "active", "deprecated" as const),
  })
  .map((f) => ({
    file: `.kxm/memory/${f.id}.md`,
    id: f.id,
    scope: f.scope,
    kind: f.kind,
    summary: f.summary,
    provenance: { sourceType: "git" },
    authority: "evidence",
    confidence: "probable",
    lifecycle: f.lifecycle,
    evidenceRefs: [],
    body: "",
  }));

// --- oracle -----------------------------------------------------------------------------------------------------

function positions(text: string, marker: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) found.push(at);
  return found;
}

/** True when the file holds exactly one start marker followed by exactly one end marker, or no marker. */
function wellFormed(text: string): boolean {
  const starts = positions(text, MEMORY_START);
  const ends = positions(text, MEMORY_END);
  if (starts.length === 0 && ends.length === 0) return true;
  return starts.length === 1 && ends.length === 1 && (starts[0] ?? 0) < (ends[0] ?? 0);
}

/** Checks one synced text against its original: one block, equal to `block`, and every outside byte kept. */
function checkSynced(original: string, synced: string, block: string): void {
  const starts = positions(synced, MEMORY_START);
  const ends = positions(synced, MEMORY_END);
  expect(starts).toHaveLength(1);
  expect(ends).toHaveLength(1);
  const start = starts[0] ?? -1;
  const end = (ends[0] ?? -1) + MEMORY_END.length;
  expect(start).toBeLessThan(end);
  const inside = synced.slice(start, end);
  expect(inside.replace(/\r\n/g, "\n")).toBe(block);
  const eol = /\r?\n/.exec(original)?.[0] === "\r\n" ? "\r\n" : "\n";
  expect(inside).toBe(block.replace(/\n/g, eol));
  const before = synced.slice(0, start);
  const after = synced.slice(end);
  const originalStart = original.indexOf(MEMORY_START);
  if (originalStart >= 0) {
    expect(before).toBe(original.slice(0, originalStart));
    expect(after).toBe(original.slice(original.indexOf(MEMORY_END) + MEMORY_END.length));
  } else {
    const bom = original.startsWith("\uFEFF") ? "\uFEFF" : "";
    const trimmed = original.slice(bom.length).trimEnd();
    expect(before).toBe(trimmed === "" ? bom : `${bom}${trimmed}${eol}${eol}`);
    expect(after).toBe(eol);
  }
  const again = planSync("AGENTS.md", synced, block);
  expect(again).toEqual({ text: synced, action: "unchanged" });
}

// --- properties -------------------------------------------------------------------------------------------------

describe("sync, for any instruction file", () => {
  it("planSync refuses exactly the malformed files, and otherwise leaves one current block and every other byte", () => {
    fc.assert(
      fc.property(fileText, fc.array(factArb, { maxLength: 4 }), (original, facts) => {
        const block = renderMemoryBlock(facts);
        let planned: { text: string; action: string };
        try {
          planned = planSync("AGENTS.md", original, block);
        } catch (error) {
          expect(isKxmError(error) && error.code === "memory_sync_refused").toBe(true);
          expect((error as Error).message).toMatch(/^AGENTS\.md has .*; wrote no file\.$/);
          expect(wellFormed(original)).toBe(false);
          return;
        }
        expect(wellFormed(original)).toBe(true);
        checkSynced(original, planned.text, block);
        expect(planned.action).toBe(
          planned.text === original ? "unchanged" : original.includes(MEMORY_START) ? "updated" : "appended",
        );
      }),
      { numRuns: 900 },
    );
  });

  it("syncInstructionFiles either writes no byte or leaves every file with one current block", async () => {
    const project = fc.record({
      files: fc
        .subarray([...INSTRUCTION_FILES], { minLength: 1 })
        .chain((names) => fc.tuple(...names.map((name) => fileText.map((text) => [name, text] as const)))),
      facts: fc.array(factArb, { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(project, async ({ files, facts }) => {
        const root = await tempRoot();
        const unique = new Map(facts.map((f) => [f.id, f]));
        for (const f of unique.values()) {
          const front = {
            schema: "kxm.memory.v1",
            id: f.id,
            scope: f.scope,
            kind: f.kind,
            summary: f.summary,
            provenance: f.provenance,
            authority: f.authority,
            confidence: f.confidence,
            lifecycle: f.lifecycle,
          };
          await put(root, `.kxm/memory/${f.id}.md`, `---\n${stringify(front)}---\n`);
        }
        for (const [name, text] of files) await put(root, name, text);
        const before = await snapshot(root);
        const block = renderMemoryBlock(await activeFacts(root));

        let result: Awaited<ReturnType<typeof syncInstructionFiles>>;
        try {
          result = await syncInstructionFiles(root);
        } catch (error) {
          expect(isKxmError(error) && error.code === "memory_sync_refused").toBe(true);
          expect(files.some(([, text]) => !wellFormed(text))).toBe(true);
          expect(await snapshot(root)).toEqual(before);
          return;
        }
        expect(files.every(([, text]) => wellFormed(text))).toBe(true);
        expect(result.block).toBe(block);
        expect(result.files.map((file) => file.file)).toEqual(
          INSTRUCTION_FILES.filter((name) => files.some(([file]) => file === name)),
        );
        for (const [name, text] of files) checkSynced(text, await readFile(join(root, name), "utf8"), block);

        const synced = await snapshot(root);
        const second = await syncInstructionFiles(root);
        expect(second.files.every((file) => file.action === "unchanged")).toBe(true);
        expect(await snapshot(root)).toEqual(synced);
      }),
      { numRuns: 100 },
    );
  });
});
