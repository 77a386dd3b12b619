import { PoolIndex } from "@kxm/arbiter";
import { AUTHORITIES, type ContextItem, ITEM_KINDS, type JsonValue } from "@kxm/contract";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { assembledPacketJson } from "../src/packet-json.js";

// Text with quotes, backslashes, section-like keys and characters beyond ASCII, where a splice by text could go wrong.
const tricky = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom('"currentState":[', '"knowledge":[]', '\\"', "東京 ünï 😀", "a\u2028b", "\u0000"),
);

const itemArb = (id: string): fc.Arbitrary<ContextItem> =>
  fc
    .record({
      kind: fc.constantFrom(...ITEM_KINDS),
      summary: fc
        .tuple(tricky, fc.constantFrom("release", "deploy", "gate"))
        .map(([text, word]) => `${word} ${text}`),
      sourceRef: fc.option(
        tricky.filter((ref) => ref.length > 0),
        { nil: undefined },
      ),
    })
    .map(({ kind, summary, sourceRef }) => ({
      id,
      kind,
      project: "demo",
      summary: summary.trim() || "release",
      provenance: { sourceType: "human", ...(sourceRef === undefined ? {} : { sourceRef }) },
      authority: AUTHORITIES[0],
      confidence: "verified",
      ...(kind === "state" ? { stateKey: "release.branch", status: "current" as const } : {}),
    }));

describe("assembledPacketJson", () => {
  test("gives JSON.stringify's bytes for any packet, with items reused across packets", () => {
    const scenario = fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,6}$/), { maxLength: 30 }).chain((ids) =>
      fc.record({
        items: fc.tuple(...ids.map(itemArb)),
        role: fc.constantFrom("planner", "implementer", "critic", 'role "currentState":['),
        task: tricky,
        workingState: fc.dictionary(
          fc.oneof(tricky, fc.constantFrom("currentState", "knowledge", "skills")),
          fc.jsonValue() as fc.Arbitrary<JsonValue>,
          { maxKeys: 4 },
        ),
        contradictions: fc.subarray(ids, { maxLength: Math.min(3, ids.length) }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ items, role, task, workingState, contradictions }) => {
        const index = new PoolIndex(items);
        for (const request of [
          { project: "demo", role, task },
          { project: "demo", role, task: `${task} release` },
        ]) {
          const assembled = index.assemble(request, { workingState, contradictionIds: contradictions });
          expect(assembledPacketJson(assembled).toString("utf8")).toBe(JSON.stringify(assembled));
        }
      }),
      { numRuns: 300 },
    );
  });
});
