import { describe, expect, it } from "vitest";
import { explainLineage, lineageDepth, lineageOf } from "../src/index.js";
import { item } from "./support.js";

const derived = item("sum_1", {
  kind: "knowledge",
  authority: "hypothesis",
  confidence: "probable",
  provenance: { sourceType: "derived", sourceRef: "summary:w36", derivedFrom: ["ev_1", "ev_gone", "mem_1"] },
  evidenceRefs: ["run:7", "pr:12"],
});
const pool = [
  derived,
  item("ev_1"),
  item("mem_1", { project: "_shared", provenance: { sourceType: "git" } }),
  item("ev_1", { provenance: { sourceType: "peer", sourceRef: "duplicate" } }),
];

describe("explainLineage", () => {
  it("explains a derived item: metadata, ancestors in derivedFrom order, depth and evidence refs", () => {
    expect(explainLineage("sum_1", pool)).toEqual({
      id: "sum_1",
      exists: true,
      item: {
        id: "sum_1",
        kind: "knowledge",
        authority: "hypothesis",
        confidence: "probable",
        sourceType: "derived",
        sourceRef: "summary:w36",
      },
      lineage: [
        { id: "ev_1", exists: true, sourceType: "tool", sourceRef: "tool:ev_1" },
        { id: "ev_gone", exists: false },
        { id: "mem_1", exists: true, sourceType: "git" },
      ],
      lineageDepth: 3,
      evidenceRefs: ["run:7", "pr:12"],
    });
  });

  it("reports a missing ancestor with exists false and never throws", () => {
    const orphan = item("sum_2", { provenance: { sourceType: "derived", derivedFrom: ["a", "b"] } });
    const explained = explainLineage("sum_2", [orphan]);
    expect(explained.lineage).toEqual([
      { id: "a", exists: false },
      { id: "b", exists: false },
    ]);
    expect(explained.lineageDepth).toBe(2);
  });

  it("gives exists false and empty lists for an unknown id", () => {
    expect(explainLineage("nope", pool)).toEqual({
      id: "nope",
      exists: false,
      lineage: [],
      lineageDepth: 0,
      evidenceRefs: [],
    });
    expect(explainLineage("nope", [])).toMatchObject({ exists: false });
  });

  it("explains an item that is not derived with an empty lineage and no summary", () => {
    const explained = explainLineage("ev_1", pool);
    expect(explained).toMatchObject({ exists: true, lineage: [], lineageDepth: 0, evidenceRefs: [] });
    expect(explained.item).toEqual({
      id: "ev_1",
      kind: "evidence",
      authority: "evidence",
      confidence: "verified",
      sourceType: "tool",
      sourceRef: "tool:ev_1",
    });
    expect(JSON.stringify(explained)).not.toContain("Evidence ev_1");
  });

  it("takes the first item when the pool repeats an id", () => {
    expect(explainLineage("ev_1", pool).item?.sourceType).toBe("tool");
  });

  it("accepts any iterable pool and returns copies", () => {
    const explained = explainLineage("sum_1", new Set(pool));
    expect(explained.exists).toBe(true);
    explained.evidenceRefs.push("mutated");
    expect(derived.evidenceRefs).toEqual(["run:7", "pr:12"]);
  });
});

describe("lineageOf and lineageDepth", () => {
  it("unions ancestor ids with their derivedFrom, sorted by code unit", () => {
    expect(lineageOf([item("b"), derived, item("B")])).toEqual([
      "B",
      "b",
      "ev_1",
      "ev_gone",
      "mem_1",
      "sum_1",
    ]);
  });

  it("counts the ancestors in an item's lineage", () => {
    expect(lineageDepth(derived)).toBe(3);
    expect(lineageDepth(item("ev_1"))).toBe(0);
  });
});
