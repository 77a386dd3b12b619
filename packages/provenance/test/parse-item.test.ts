import { AUTHORITIES, type Authority, CONTROL_PLANE_FIELDS, ORIGINS, type Origin } from "@kxm/contract";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseContextItem } from "../src/index.js";
import { expectKxmError, rawItem } from "./support.js";

const SECRET = ["gh", "p_", "PARSEFAKETOKEN".padEnd(36, "0")].join("");
const HEX64 = "0123456789abcdef".repeat(4);

describe("parseContextItem: shape", () => {
  it("accepts a valid item and returns a new object", () => {
    const raw = rawItem();
    const parsed = parseContextItem(raw);
    expect(parsed).toEqual(raw);
    expect(parsed).not.toBe(raw);
  });

  it("trims the summary", () => {
    expect(parseContextItem(rawItem({ summary: "  padded summary \n" })).summary).toBe("padded summary");
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", "item"],
    ["a number", 42],
    ["an array", [rawItem()]],
    ["a Map", new Map([["id", "x"]])],
    ["a class instance", new (class Item {})()],
  ])("refuses %s with 400 invalid_context_item", (_name, raw) => {
    expectKxmError(() => parseContextItem(raw), "invalid_context_item", 400);
  });

  it("accepts an object without a prototype", () => {
    const raw = Object.assign(Object.create(null) as object, rawItem());
    expect(parseContextItem(raw).id).toBe("ev_1");
  });

  it.each([
    ["an unknown key", { colour: "red" }, "invalid_context_item"],
    ["an unknown kind", { kind: "fact" }, "invalid_context_item"],
    ["an id with white space", { id: "ev 1" }, "invalid_context_item"],
    ["a blank summary", { summary: "   " }, "invalid_context_item"],
    ["a bad timestamp", { observedAt: "yesterday" }, "invalid_context_item"],
    ["a summary over 4,000 characters", { summary: "x".repeat(4001) }, "context_limits_exceeded"],
    [
      "a state key over 200 characters",
      { kind: "state", status: "current", stateKey: "k".repeat(201) },
      "context_limits_exceeded",
    ],
    ["an id over 128 characters", { id: "i".repeat(129) }, "context_limits_exceeded"],
    [
      "65 evidence refs",
      { evidenceRefs: Array.from({ length: 65 }, (_, i) => `ref:${i}`) },
      "context_limits_exceeded",
    ],
    ["a repeated evidence ref", { evidenceRefs: ["pr:1", "pr:1"] }, "context_limits_exceeded"],
    [
      "a source ref over 512 characters",
      { provenance: { sourceType: "tool", sourceRef: "s".repeat(513) } },
      "context_limits_exceeded",
    ],
    [
      "65 derivedFrom refs",
      {
        provenance: { sourceType: "derived", derivedFrom: Array.from({ length: 65 }, (_, i) => `a${i}`) },
      },
      "context_limits_exceeded",
    ],
  ] as const)("refuses %s with 400 %s", (_name, overrides, code) => {
    expectKxmError(() => parseContextItem(rawItem(overrides)), code, 400);
  });

  it("accepts exactly 4,000 summary characters", () => {
    expect(parseContextItem(rawItem({ summary: "x".repeat(4000) })).summary).toHaveLength(4000);
  });
});

describe("parseContextItem: control-plane fields", () => {
  it.each(CONTROL_PLANE_FIELDS)("refuses a top-level %s with 403 context_authority_violation", (field) => {
    const error = expectKxmError(
      () => parseContextItem(rawItem({ [field]: SECRET })),
      "context_authority_violation",
      403,
    );
    expect(error.message).toBe(`context items may not carry the control-plane field "${field}"`);
    expect(error.message).not.toContain(SECRET);
  });

  it("checks control-plane fields before the schema", () => {
    expectKxmError(() => parseContextItem({ tools: ["shell"] }), "context_authority_violation", 403);
  });

  it("refuses a control-plane field even when its value is undefined", () => {
    expectKxmError(() => parseContextItem(rawItem({ token: undefined })), "context_authority_violation", 403);
  });
});

// docs/reference/behaviour.md section 4, written out rather than read from the contract so that a change there fails here.
const CEILING: Record<Origin, Authority> = {
  human: "policy",
  workflow: "policy",
  git: "instruction",
  peer: "evidence",
  tool: "evidence",
  external: "evidence",
  derived: "evidence",
};
const STRENGTH: Record<Authority, number> = { policy: 3, instruction: 2, evidence: 1, hypothesis: 0 };
const PAIRS = ORIGINS.flatMap((origin) => AUTHORITIES.map((authority) => ({ origin, authority })));

describe("parseContextItem: origin ceilings", () => {
  it("covers all 28 origin and authority pairs", () => {
    expect(PAIRS).toHaveLength(28);
  });

  it.each(PAIRS)("origin $origin claiming $authority", ({ origin, authority }) => {
    const provenance =
      origin === "derived" ? { sourceType: origin, derivedFrom: ["a"] } : { sourceType: origin };
    const raw = rawItem({ provenance, authority });
    if (STRENGTH[authority] <= STRENGTH[CEILING[origin]]) {
      expect(parseContextItem(raw).authority).toBe(authority);
    } else {
      const error = expectKxmError(() => parseContextItem(raw), "context_authority_violation", 403);
      expect(error.message).toBe(`content of origin ${origin} cannot claim ${authority} authority`);
    }
  });
});

describe("parseContextItem: lifecycle", () => {
  it.each([
    ["a state item without a stateKey", { kind: "state", status: "current" }],
    ["a state item without a status", { kind: "state", stateKey: "release.branch" }],
    ["a stateKey on a knowledge item", { kind: "knowledge", stateKey: "release.branch" }],
    ["status current on a knowledge item", { kind: "knowledge", status: "current" }],
    ["status current on a skill", { kind: "skill", status: "current" }],
    ["status proposed on an evidence item", { status: "proposed" }],
    ["status proposed on an episode", { kind: "episode", status: "proposed" }],
  ])("refuses %s with 400 invalid_context_item", (_name, overrides) => {
    expectKxmError(() => parseContextItem(rawItem(overrides)), "invalid_context_item", 400);
  });

  it.each([
    ["a current state item", { kind: "state", status: "current", stateKey: "release.branch" }],
    ["a proposed state item", { kind: "state", status: "proposed", stateKey: "release.branch" }],
    ["a superseded state item", { kind: "state", status: "superseded", stateKey: "release.branch" }],
    ["a proposed skill", { kind: "skill", status: "proposed" }],
    ["a superseded knowledge item", { kind: "knowledge", status: "superseded" }],
    ["a rejected evidence item", { status: "rejected" }],
  ])("accepts %s", (_name, overrides) => {
    expect(() => parseContextItem(rawItem(overrides))).not.toThrow();
  });
});

describe("parseContextItem: validity window", () => {
  it.each([
    ["equal to validFrom", "2026-09-01T00:00:00Z", "2026-09-01T00:00:00Z"],
    ["before validFrom", "2026-09-02T00:00:00Z", "2026-09-01T00:00:00Z"],
    ["the same instant in another zone", "2026-09-01T00:00:00Z", "2026-09-01T02:00:00+02:00"],
  ])("refuses validUntil %s with 400 invalid_context_item", (_name, validFrom, validUntil) => {
    expectKxmError(() => parseContextItem(rawItem({ validFrom, validUntil })), "invalid_context_item", 400);
  });

  it("accepts validUntil strictly after validFrom, compared as instants", () => {
    const raw = rawItem({ validFrom: "2026-09-01T02:00:00+02:00", validUntil: "2026-09-01T00:00:00.001Z" });
    expect(parseContextItem(raw).validUntil).toBe("2026-09-01T00:00:00.001Z");
  });

  it("accepts an open window on either side", () => {
    expect(() => parseContextItem(rawItem({ validFrom: "2026-09-01T00:00:00Z" }))).not.toThrow();
    expect(() => parseContextItem(rawItem({ validUntil: "2026-09-01T00:00:00Z" }))).not.toThrow();
  });
});

describe("parseContextItem: expiry and review dates", () => {
  it("keeps expiresAt and reviewBy as given", () => {
    const parsed = parseContextItem(
      rawItem({ expiresAt: "2026-12-01T00:00:00Z", reviewBy: "2026-11-01T00:00:00+01:00" }),
    );
    expect(parsed.expiresAt).toBe("2026-12-01T00:00:00Z");
    expect(parsed.reviewBy).toBe("2026-11-01T00:00:00+01:00");
  });

  it.each([
    ["a date without a time", { expiresAt: "2026-12-01" }],
    ["a datetime without a zone", { reviewBy: "2026-12-01T00:00:00" }],
    ["not a string", { expiresAt: 20261201 }],
  ])("refuses %s with 400 invalid_context_item", (_name, overrides) => {
    expectKxmError(() => parseContextItem(rawItem(overrides)), "invalid_context_item", 400);
  });

  it("refuses a reviewBy after expiresAt, compared as instants", () => {
    const reviewMessage = expectKxmError(
      () =>
        parseContextItem(
          rawItem({ expiresAt: "2026-12-01T00:00:00Z", reviewBy: "2026-12-01T02:00:00+01:00" }),
        ),
      "invalid_context_item",
      400,
    ).message;
    expect(reviewMessage).toContain("reviewBy");
    expect(() =>
      parseContextItem(rawItem({ expiresAt: "2026-12-01T00:00:00Z", reviewBy: "2026-12-01T00:00:00Z" })),
    ).not.toThrow();
  });

  it("refuses an expiresAt not after validFrom, or observedAt without one", () => {
    expectKxmError(
      () =>
        parseContextItem(rawItem({ validFrom: "2026-09-01T00:00:00Z", expiresAt: "2026-09-01T00:00:00Z" })),
      "invalid_context_item",
      400,
    );
    expectKxmError(
      () =>
        parseContextItem(rawItem({ observedAt: "2026-09-02T00:00:00Z", expiresAt: "2026-09-01T00:00:00Z" })),
      "invalid_context_item",
      400,
    );
  });
});

describe("parseContextItem: derivation", () => {
  it.each([
    ["a derived item without derivedFrom", { provenance: { sourceType: "derived" } }],
    ["a derived item with an empty derivedFrom", { provenance: { sourceType: "derived", derivedFrom: [] } }],
    ["derivedFrom on a tool item", { provenance: { sourceType: "tool", derivedFrom: ["ev_0"] } }],
    ["an empty derivedFrom on a tool item", { provenance: { sourceType: "tool", derivedFrom: [] } }],
  ])("refuses %s with 400 invalid_context_item", (_name, overrides) => {
    expectKxmError(() => parseContextItem(rawItem(overrides)), "invalid_context_item", 400);
  });

  it("accepts a derived item with up to 64 ancestors", () => {
    const derivedFrom = Array.from({ length: 64 }, (_, i) => `a${i}`);
    const parsed = parseContextItem(rawItem({ provenance: { sourceType: "derived", derivedFrom } }));
    expect(parsed.provenance.derivedFrom).toEqual(derivedFrom);
  });
});

describe("parseContextItem: redaction", () => {
  it("redacts secrets in the summary and the source ref", () => {
    const parsed = parseContextItem(
      rawItem({
        summary: `push used ${SECRET} today`,
        provenance: { sourceType: "tool", sourceRef: `https://ci.example.com/run?token=${SECRET}` },
      }),
    );
    expect(parsed.summary).toBe("push used [redacted] today");
    expect(parsed.provenance.sourceRef).toBe("https://ci.example.com/run?[redacted]");
  });

  it("keeps a skill source ref's digest", () => {
    const sourceRef = `skill:deploy-checklist.0123456789ab@${HEX64}`;
    const parsed = parseContextItem(
      rawItem({ kind: "skill", provenance: { sourceType: "git", sourceRef }, authority: "instruction" }),
    );
    expect(parsed.provenance.sourceRef).toBe(sourceRef);
  });

  it("redacts references like summaries: a bare 64-hex digest in an evidence ref goes, a commit id stays", () => {
    const commit = "3f2a9c1d0e4b5a6978877665544332211aabbccd";
    const parsed = parseContextItem(rawItem({ evidenceRefs: [`sha:${HEX64}`, `commit:${commit}`] }));
    expect(parsed.evidenceRefs).toEqual(["sha:[redacted]", `commit:${commit}`]);
  });

  it("does not redact ids or state keys (they are identifiers, not free text)", () => {
    const parsed = parseContextItem(
      rawItem({ id: "state_1", kind: "state", status: "proposed", stateKey: "release.branch" }),
    );
    expect({ id: parsed.id, stateKey: parsed.stateKey }).toEqual({
      id: "state_1",
      stateKey: "release.branch",
    });
  });

  it("refuses with 400 context_limits_exceeded when redaction grows a summary past 4,000", () => {
    const summary = `${"x".repeat(3992)} ?sig=ab`;
    expect(summary).toHaveLength(4000);
    expectKxmError(() => parseContextItem(rawItem({ summary })), "context_limits_exceeded", 400);
  });

  it("refuses with 400 context_limits_exceeded when redaction grows a source ref past 512", () => {
    const sourceRef = `${"s".repeat(504)}?sig=ab`;
    expectKxmError(
      () => parseContextItem(rawItem({ provenance: { sourceType: "tool", sourceRef } })),
      "context_limits_exceeded",
      400,
    );
  });
});

describe("parseContextItem: error messages never echo a value", () => {
  it.each([
    ["a secret as an unknown key", { [SECRET]: 1 }],
    ["a secret as an unknown provenance key", { provenance: { sourceType: "tool", [SECRET]: 1 } }],
    ["a secret as the kind", { kind: SECRET }],
    ["a secret as the authority", { authority: SECRET }],
    ["a secret in an id with white space", { id: `${SECRET} x` }],
    ["a secret in a too-long summary", { summary: `${SECRET} ${"x".repeat(4000)}` }],
    ["a secret as a timestamp", { validFrom: SECRET }],
    ["a secret as a status", { status: SECRET }],
    ["a secret as a control-plane value", { password: SECRET }],
  ])("%s", (_name, overrides) => {
    let message = "";
    try {
      parseContextItem(rawItem(overrides));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toBe("");
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(SECRET.slice(4, 20));
  });
});

const CANONICAL_KEYS = [
  "id",
  "kind",
  "project",
  "summary",
  "provenance",
  "authority",
  "confidence",
  "status",
  "stateKey",
  "scope",
  "observedAt",
  "validFrom",
  "validUntil",
  "expiresAt",
  "reviewBy",
  "evidenceRefs",
  "supersedes",
];
const FULL_ITEM = {
  id: "state_1",
  kind: "state",
  project: "demo",
  summary: "Releases are cut from the main branch",
  provenance: { sourceType: "peer", sourceRef: "proposed-by:agent-1" },
  authority: "evidence",
  confidence: "verified",
  status: "current",
  stateKey: "release.branch",
  scope: "project",
  observedAt: "2026-08-30T00:00:00Z",
  validFrom: "2026-09-01T00:00:00Z",
  validUntil: "2026-10-01T00:00:00Z",
  expiresAt: "2026-12-01T00:00:00Z",
  reviewBy: "2026-11-01T00:00:00Z",
  evidenceRefs: ["pr:12", "review:pr-12"],
  supersedes: ["state_0"],
};

describe("parseContextItem: canonical form", () => {
  it("orders keys canonically, provenance included", () => {
    const reversed = Object.fromEntries(Object.entries(FULL_ITEM).reverse());
    reversed.provenance = { sourceRef: "proposed-by:agent-1", sourceType: "peer" };
    const parsed = parseContextItem(reversed);
    expect(Object.keys(parsed)).toEqual(CANONICAL_KEYS);
    expect(Object.keys(parsed.provenance)).toEqual(["sourceType", "sourceRef"]);
    expect(
      Object.keys(
        parseContextItem(rawItem({ provenance: { derivedFrom: ["a"], sourceType: "derived" } })).provenance,
      ),
    ).toEqual(["sourceType", "derivedFrom"]);
  });

  it("drops undefined-valued keys", () => {
    const parsed = parseContextItem(
      rawItem({ status: undefined, scope: undefined, evidenceRefs: undefined }),
    );
    expect(Object.keys(parsed)).toEqual([
      "id",
      "kind",
      "project",
      "summary",
      "provenance",
      "authority",
      "confidence",
    ]);
    expect(Object.hasOwn(parsed, "status")).toBe(false);
  });

  it("serializes equal items to identical JSON whatever the input key order", () => {
    const entries = Object.entries(FULL_ITEM);
    fc.assert(
      fc.property(
        fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }),
        (shuffled) => {
          expect(JSON.stringify(parseContextItem(Object.fromEntries(shuffled)))).toBe(
            JSON.stringify(parseContextItem(FULL_ITEM)),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it("is idempotent: parsing a parsed item gives the same bytes", () => {
    const once = parseContextItem(rawItem({ summary: `  key ${SECRET} leaked ` }));
    expect(JSON.stringify(parseContextItem(once))).toBe(JSON.stringify(once));
  });

  it("does not alias or mutate the input", () => {
    const raw = structuredClone(FULL_ITEM);
    const parsed = parseContextItem(raw);
    expect(raw).toEqual(FULL_ITEM);
    expect(parsed.evidenceRefs).not.toBe(raw.evidenceRefs);
    expect(parsed.provenance).not.toBe(raw.provenance);
  });
});
