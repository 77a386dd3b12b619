import { describe, expect, it } from "vitest";
import {
  type EfficacyInput,
  efficacy,
  memoryEfficacy,
  skillEfficacy,
  wilsonInterval,
} from "../src/learning/efficacy.js";

// Efficacy is pure: exact numbers on hand-built rows. The Wilson figures below were computed by hand from the
// score-interval formula (z = 1.959963984540054, the two-sided 95% normal quantile), and `wilson` recomputes them
// here in the other textbook form, (k + z²/2 ± z·sqrt(k(n-k)/n + z²/4)) / (n + z²), independent of the
// implementation's arithmetic.

const Z = 1.959963984540054;

function wilson(k: number, n: number) {
  const z2 = Z * Z;
  const center = k + z2 / 2;
  const half = Z * Math.sqrt((k * (n - k)) / n + z2 / 4);
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    low: r(Math.max(0, (center - half) / (n + z2))),
    high: r(Math.min(1, (center + half) / (n + z2))),
  };
}

describe("wilsonInterval", () => {
  it("gives the 95% Wilson score interval rounded to 4 decimals", () => {
    expect(wilsonInterval(8, 10)).toEqual({ low: 0.4902, high: 0.9433 });
    expect(wilsonInterval(1, 2)).toEqual({ low: 0.0945, high: 0.9055 });
    expect(wilsonInterval(3, 7)).toEqual({ low: 0.1582, high: 0.7495 });
    expect(wilsonInterval(2, 3)).toEqual({ low: 0.2077, high: 0.9385 });
    expect(wilsonInterval(1, 3)).toEqual({ low: 0.0615, high: 0.7923 });
    for (const [k, n] of [
      [8, 10],
      [1, 2],
      [3, 7],
      [2, 3],
      [1, 3],
      [17, 40],
      [99, 100],
    ] as const) {
      expect(wilsonInterval(k, n), `${k}/${n}`).toEqual(wilson(k, n));
    }
  });

  it("starts at 0 for no successes and ends at 1 for all", () => {
    expect(wilsonInterval(0, 5)).toEqual({ low: 0, high: 0.4345 });
    expect(wilsonInterval(0, 1)).toEqual({ low: 0, high: 0.7935 });
    expect(wilsonInterval(5, 5)).toEqual({ low: 0.5655, high: 1 });
    expect(wilsonInterval(1, 1)).toEqual({ low: 0.2065, high: 1 });
    expect(wilsonInterval(2, 2)).toEqual({ low: 0.3424, high: 1 });
  });

  it("is null with no trials", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

const row = (
  workflow: string,
  stepId: string,
  verified: boolean,
  skills: string[] = [],
  memory: string[] = [],
): EfficacyInput => ({ workflow, stepId, verified, skills, memory });

// fix-bug/plan is the step s1 and m1 are carried on; fix-bug/implement and release/plan are other steps.
const ROWS: EfficacyInput[] = [
  row("fix-bug", "plan", true, ["s1"], ["m1"]),
  row("fix-bug", "plan", false, ["s1", "s1"], []),
  row("fix-bug", "plan", true, [], ["m1"]),
  row("fix-bug", "plan", false),
  row("fix-bug", "plan", true),
  // Another step of the same workflow, failed: never a "without" attempt for s1 or m1.
  row("fix-bug", "implement", false),
  row("fix-bug", "implement", true, ["s0"]),
  // The same step id in another workflow: not matched either.
  row("release", "plan", true, ["S9"]),
  row("release", "plan", false, [], []),
];

describe("efficacy", () => {
  it("compares the attempts carrying an id with the matched attempts of the same workflow step", () => {
    expect(skillEfficacy(ROWS)).toEqual([
      {
        id: "S9",
        with: { n: 1, verified: 1, rate: 1, interval: { low: 0.2065, high: 1 } },
        without: { n: 1, verified: 0, rate: 0, interval: { low: 0, high: 0.7935 } },
      },
      {
        id: "s0",
        with: { n: 1, verified: 1, rate: 1, interval: { low: 0.2065, high: 1 } },
        without: { n: 1, verified: 0, rate: 0, interval: { low: 0, high: 0.7935 } },
      },
      {
        // Carried twice in one row: that row counts once.
        id: "s1",
        with: { n: 2, verified: 1, rate: 0.5, interval: { low: 0.0945, high: 0.9055 } },
        without: { n: 3, verified: 2, rate: 0.6667, interval: { low: 0.2077, high: 0.9385 } },
      },
    ]);
  });

  it("reads memory ids from the memory field, never from skills", () => {
    expect(memoryEfficacy(ROWS)).toEqual([
      {
        id: "m1",
        with: { n: 2, verified: 2, rate: 1, interval: { low: 0.3424, high: 1 } },
        without: { n: 3, verified: 1, rate: 0.3333, interval: { low: 0.0615, high: 0.7923 } },
      },
    ]);
  });

  it("has an empty side (rate and interval null) when every matched attempt carried the id", () => {
    expect(skillEfficacy([row("w", "a", true, ["only"]), row("w", "b", false)])).toEqual([
      {
        id: "only",
        with: { n: 1, verified: 1, rate: 1, interval: { low: 0.2065, high: 1 } },
        without: { n: 0, verified: 0, rate: null, interval: null },
      },
    ]);
  });

  it("matches on every step the id was carried on, and sorts ids by code units", () => {
    const rows = [
      row("w", "a", true, ["b-skill"]),
      row("w", "b", false, ["b-skill", "a-skill"]),
      row("w", "a", false),
      row("w", "b", true),
      row("w", "c", false),
    ];
    const result = efficacy(rows, (r) => r.skills);
    expect(result.map((e) => e.id)).toEqual(["a-skill", "b-skill"]);
    // a-skill was carried on w/b only: w/b's other attempt is its without side.
    expect(result[0]!.without).toMatchObject({ n: 1, verified: 1 });
    // b-skill on w/a and w/b: the two attempts without it on those steps, never w/c.
    expect(result[1]).toMatchObject({
      with: { n: 2, verified: 1, rate: 0.5 },
      without: { n: 2, verified: 1, rate: 0.5 },
    });
    // Order of input rows changes nothing.
    expect(efficacy([...rows].reverse(), (r) => r.skills)).toEqual(result);
  });

  it("is empty when nothing was carried", () => {
    expect(skillEfficacy([row("w", "a", true)])).toEqual([]);
    expect(memoryEfficacy([])).toEqual([]);
  });
});
