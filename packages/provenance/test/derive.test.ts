import { createHash } from "node:crypto";
import type { Authority, ContextItem } from "@kxm/contract";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deriveContextItem, summarizeContextItems } from "../src/index.js";
import { expectKxmError, item } from "./support.js";

const BASE = {
  id: "der_1",
  kind: "knowledge" as const,
  project: "demo",
  summary: "CI flakes cluster on Mondays",
};
const SECRET = ["gh", "p_", "DERIVEFAKETOKEN".padEnd(36, "0")].join("");

describe("deriveContextItem", () => {
  it("makes a derived, probable item with the claimed authority", () => {
    const derived = deriveContextItem(BASE, "evidence", [item("ev_2"), item("ev_1")], "analysis:weekly");
    expect(derived).toEqual({
      ...BASE,
      provenance: { sourceType: "derived", sourceRef: "analysis:weekly", derivedFrom: ["ev_1", "ev_2"] },
      authority: "evidence",
      confidence: "probable",
    });
  });

  it("carries scope, observedAt, validFrom and evidenceRefs, and omits a missing sourceRef", () => {
    const derived = deriveContextItem(
      {
        ...BASE,
        scope: "project",
        observedAt: "2026-09-01T00:00:00Z",
        validFrom: "2026-09-01T00:00:00Z",
        evidenceRefs: ["run:7"],
      },
      "hypothesis",
      [item("ev_1")],
    );
    expect(derived.provenance).toEqual({ sourceType: "derived", derivedFrom: ["ev_1"] });
    expect(derived).toMatchObject({
      scope: "project",
      observedAt: "2026-09-01T00:00:00Z",
      evidenceRefs: ["run:7"],
    });
  });

  it("takes derivedFrom as the sorted, de-duplicated union of ancestor ids and their derivedFrom", () => {
    const parent = item("sum_b", {
      provenance: { sourceType: "derived", derivedFrom: ["ev_z", "ev_a", "Ev_B"] },
    });
    const derived = deriveContextItem(BASE, "evidence", [item("ev_z"), parent, item("é_1"), item("ev_a")]);
    // Code-unit order: upper case before lower case, non-ASCII last (localeCompare would differ).
    expect(derived.provenance.derivedFrom).toEqual(["Ev_B", "ev_a", "ev_z", "sum_b", "é_1"]);
  });

  it("redacts and validates the result through parseContextItem", () => {
    const derived = deriveContextItem({ ...BASE, summary: `  token ${SECRET} leaked  ` }, "evidence", [
      item("ev_1"),
    ]);
    expect(derived.summary).toBe("token [redacted] leaked");
    expectKxmError(
      () => deriveContextItem({ ...BASE, kind: "state" }, "evidence", [item("ev_1")]),
      "invalid_context_item",
      400,
    );
  });

  it("refuses an empty lineage with 400 invalid_context_item", () => {
    expectKxmError(() => deriveContextItem(BASE, "evidence", []), "invalid_context_item", 400);
  });

  it("refuses more than 64 ancestors with 400 context_limits_exceeded", () => {
    const lineage = Array.from({ length: 65 }, (_, i) => item(`ev_${i}`));
    expectKxmError(() => deriveContextItem(BASE, "evidence", lineage), "context_limits_exceeded", 400);
  });

  it("accepts a union of exactly 64 and refuses 65 with 400 context_limits_exceeded", () => {
    const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => `ev_${from + i}`);
    const derivedParent = (id: string, derivedFrom: string[]) =>
      item(id, { provenance: { sourceType: "derived", derivedFrom } });
    const ok = deriveContextItem(BASE, "evidence", [
      derivedParent("p1", ids(0, 31)),
      derivedParent("p2", ids(31, 31)),
    ]);
    expect(ok.provenance.derivedFrom).toHaveLength(64);
    expectKxmError(
      () =>
        deriveContextItem(BASE, "evidence", [
          derivedParent("p1", ids(0, 32)),
          derivedParent("p2", ids(32, 31)),
        ]),
      "context_limits_exceeded",
      400,
    );
  });

  it.each(["instruction", "policy"] as const)(
    "refuses a claim of %s with 403 context_authority_violation",
    (claim) => {
      const error = expectKxmError(
        () =>
          deriveContextItem(BASE, claim, [
            item("pol_1", { provenance: { sourceType: "human" }, authority: "policy" }),
          ]),
        "context_authority_violation",
        403,
      );
      expect(error.message).toBe(`content of origin derived cannot claim ${claim} authority`);
    },
  );

  it("refuses authority above the strongest ancestor with 403 context_authority_violation", () => {
    const lineage = [item("h_1", { authority: "hypothesis" }), item("h_2", { authority: "hypothesis" })];
    const error = expectKxmError(
      () => deriveContextItem(BASE, "evidence", lineage),
      "context_authority_violation",
      403,
    );
    expect(error.message).toBe(
      "derived content cannot claim evidence authority above its strongest ancestor's hypothesis",
    );
  });

  it.each([
    ["equal to", "evidence", "evidence"],
    ["below", "hypothesis", "evidence"],
    ["below a policy", "evidence", "policy"],
  ] as const)("accepts a claim %s the strongest ancestor", (_name, claim, strongest: Authority) => {
    const lineage = [
      item("h_1", { authority: "hypothesis" }),
      item("s_1", { authority: strongest, provenance: { sourceType: "human" } }),
    ];
    expect(deriveContextItem(BASE, claim, lineage).authority).toBe(claim);
  });

  it("refuses an ancestor of another project with 403 context_isolation_violation", () => {
    const error = expectKxmError(
      () => deriveContextItem(BASE, "evidence", [item("ev_1"), item("ev_x", { project: "payroll-secret" })]),
      "context_isolation_violation",
      403,
    );
    expect(error.message).not.toContain("payroll-secret");
  });

  it("accepts a _shared ancestor, but never feeds a project's item into _shared", () => {
    expect(() => deriveContextItem(BASE, "evidence", [item("mem_1", { project: "_shared" })])).not.toThrow();
    expectKxmError(
      () => deriveContextItem({ ...BASE, project: "_shared" }, "evidence", [item("ev_1")]),
      "context_isolation_violation",
      403,
    );
  });

  it("refuses an item that would be its own ancestor with 400 invalid_context_item", () => {
    const parent = item("p1", { provenance: { sourceType: "derived", derivedFrom: ["der_1"] } });
    expectKxmError(() => deriveContextItem(BASE, "evidence", [parent]), "invalid_context_item", 400);
  });

  it("refuses a malformed ancestor with 400 invalid_context_item", () => {
    const broken = { ...item("ev_1"), kind: "rumour" } as unknown as ContextItem;
    expectKxmError(() => deriveContextItem(BASE, "evidence", [broken]), "invalid_context_item", 400);
  });

  it("never echoes a secret pasted as an unknown key of an ancestor", () => {
    const broken = { ...item("ev_1"), [SECRET]: 1 } as unknown as ContextItem;
    const error = expectKxmError(
      () => deriveContextItem(BASE, "evidence", [broken]),
      "invalid_context_item",
      400,
    );
    expect(error.message).not.toContain(SECRET);
  });

  it("refuses a base that carries a control-plane field with 403 context_authority_violation", () => {
    const base = { ...BASE, permissions: ["deploy"] } as typeof BASE;
    expectKxmError(
      () => deriveContextItem(base, "evidence", [item("ev_1")]),
      "context_authority_violation",
      403,
    );
  });

  it("gives the same bytes whatever the lineage order", () => {
    const lineage = [
      item("ev_3"),
      item("ev_1", { authority: "hypothesis" }),
      item("sum_9", { provenance: { sourceType: "derived", derivedFrom: ["ev_7", "ev_0"] } }),
      item("mem_1", { project: "_shared" }),
      item("ev_1"),
    ];
    const expected = JSON.stringify(deriveContextItem(BASE, "evidence", lineage));
    fc.assert(
      fc.property(
        fc.shuffledSubarray(lineage, { minLength: lineage.length, maxLength: lineage.length }),
        (shuffled) => {
          expect(JSON.stringify(deriveContextItem(BASE, "evidence", shuffled))).toBe(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("summarizeContextItems", () => {
  const lineage = [item("ev_2"), item("ev_1", { authority: "hypothesis" }), item("ev_3")];

  it("makes a derived knowledge item with a sum_ id of 24 hex digits", () => {
    const summary = summarizeContextItems(
      "demo",
      "Three runs failed on the same gate",
      lineage,
      "summary:weekly",
    );
    expect(summary.id).toMatch(/^sum_[0-9a-f]{24}$/);
    expect(summary).toMatchObject({
      kind: "knowledge",
      project: "demo",
      summary: "Three runs failed on the same gate",
      provenance: {
        sourceType: "derived",
        sourceRef: "summary:weekly",
        derivedFrom: ["ev_1", "ev_2", "ev_3"],
      },
      authority: "evidence",
      confidence: "probable",
    });
  });

  it("hashes project, trimmed summary and sorted ancestor ids with SHA-256", () => {
    const canonical = JSON.stringify(["kxm.summary.v1", "demo", "Gate flakes", ["ev_1", "ev_2", "ev_3"]]);
    const expected = `sum_${createHash("sha256").update(canonical, "utf8").digest("hex").slice(0, 24)}`;
    expect(summarizeContextItems("demo", "  Gate flakes ", lineage).id).toBe(expected);
  });

  it("changes the id when the summary, the project or the lineage changes", () => {
    const id = summarizeContextItems("demo", "Gate flakes", lineage).id;
    expect(summarizeContextItems("demo", "Gate flakes!", lineage).id).not.toBe(id);
    expect(
      summarizeContextItems(
        "demo2",
        "Gate flakes",
        lineage.map((a) => ({ ...a, project: "demo2" })),
      ).id,
    ).not.toBe(id);
    expect(summarizeContextItems("demo", "Gate flakes", lineage.slice(1)).id).not.toBe(id);
  });

  it.each([
    ["hypothesis", ["hypothesis"], "hypothesis"],
    ["evidence", ["hypothesis", "evidence"], "evidence"],
    ["a human policy", ["policy"], "evidence"],
    ["git instruction", ["instruction", "hypothesis"], "evidence"],
  ] as const)(
    "takes the weaker of evidence and the strongest ancestor (%s)",
    (_name, authorities, expected) => {
      const ancestors = authorities.map((authority, i) =>
        item(`a${i}`, { authority, provenance: { sourceType: authority === "policy" ? "human" : "git" } }),
      );
      expect(summarizeContextItems("demo", "Summary", ancestors).authority).toBe(expected);
    },
  );

  it("never sits above its strongest ancestor", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("policy", "instruction", "evidence", "hypothesis"), {
          minLength: 1,
          maxLength: 8,
        }),
        (authorities) => {
          const ancestors = authorities.map((authority, i) =>
            item(`a${i}`, { authority, provenance: { sourceType: "human" } }),
          );
          const rank = { policy: 3, instruction: 2, evidence: 1, hypothesis: 0 } as const;
          const strongest = Math.max(...authorities.map((a) => rank[a]));
          const result = summarizeContextItems("demo", "Summary", ancestors);
          expect(rank[result.authority]).toBeLessThanOrEqual(Math.min(strongest, rank.evidence));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("is deterministic: lineage order and repeats do not change a byte", () => {
    const pool = [
      ...lineage,
      item("sum_0", { provenance: { sourceType: "derived", derivedFrom: ["ev_9"] } }),
    ];
    const expected = JSON.stringify(
      summarizeContextItems("demo", "Summary of the week", pool, "summary:w36"),
    );
    fc.assert(
      fc.property(
        fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }),
        fc.boolean(),
        (shuffled, repeat) => {
          const input = repeat ? [...shuffled, shuffled[0] as ContextItem] : shuffled;
          expect(
            JSON.stringify(summarizeContextItems("demo", "Summary of the week", input, "summary:w36")),
          ).toBe(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("redacts the summary and hashes the redacted text", () => {
    const a = summarizeContextItems("demo", `key ${SECRET}`, lineage);
    expect(a.summary).toBe("key [redacted]");
    expect(summarizeContextItems("demo", "key [redacted]", lineage).id).toBe(a.id);
  });

  it("shares derive's refusals: empty lineage, over 64, other project", () => {
    expectKxmError(() => summarizeContextItems("demo", "S", []), "invalid_context_item", 400);
    expectKxmError(
      () =>
        summarizeContextItems(
          "demo",
          "S",
          Array.from({ length: 65 }, (_, i) => item(`e${i}`)),
        ),
      "context_limits_exceeded",
      400,
    );
    expectKxmError(
      () => summarizeContextItems("demo", "S", [item("x", { project: "other" })]),
      "context_isolation_violation",
      403,
    );
  });
});
