import { compareCodeUnits } from "@kxm/contract";

// Skill and memory-item efficacy: for each id ever carried, how often the attempts that carried it were verified,
// against the matched attempts (same workflow and step) that did not carry it, each rate with a 95% Wilson score
// interval. Diagnostic only: it never promotes or removes a skill or a fact. Pure: computed from ledger rows.

/** The two-sided 95% normal quantile. */
const Z = 1.959963984540054;

/** What efficacy reads from a ledger row. */
export interface EfficacyInput {
  workflow: string;
  stepId: string;
  verified: boolean;
  skills: readonly string[];
  memory: readonly string[];
}

/** A 95% Wilson score interval, rounded to 4 decimals. */
export interface Interval {
  low: number;
  high: number;
}

/** One side (with or without) of an id's comparison. */
export interface EfficacySide {
  n: number;
  verified: number;
  /** verified / n, rounded to 4 decimals; null when n is 0. */
  rate: number | null;
  /** null when n is 0. */
  interval: Interval | null;
}

export interface Efficacy {
  id: string;
  with: EfficacySide;
  without: EfficacySide;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** The 95% Wilson score interval of `verified` successes in `n` trials; null when n is 0. */
export function wilsonInterval(verified: number, n: number): Interval | null {
  if (n === 0) return null;
  const p = verified / n;
  const z2 = Z * Z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (Z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: round(Math.max(0, center - half)), high: round(Math.min(1, center + half)) };
}

function side(rows: readonly EfficacyInput[]): EfficacySide {
  const n = rows.length;
  const verified = rows.filter((row) => row.verified).length;
  return { n, verified, rate: n === 0 ? null : round(verified / n), interval: wilsonInterval(verified, n) };
}

const stepKey = (row: EfficacyInput) => `${row.workflow}\u0000${row.stepId}`;

/**
 * The efficacy of every id that `carried` names in some row, sorted by id: `with` = the rows carrying it, `without`
 * = the rows of a workflow step some carrying row belongs to that do not carry it.
 */
export function efficacy(
  rows: readonly EfficacyInput[],
  carried: (row: EfficacyInput) => readonly string[],
): Efficacy[] {
  const steps = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const id of new Set(carried(row))) {
      const set = steps.get(id) ?? new Set<string>();
      set.add(stepKey(row));
      steps.set(id, set);
    }
  }
  return [...steps.keys()].sort(compareCodeUnits).map((id) => {
    const matched = rows.filter((row) => steps.get(id)!.has(stepKey(row)));
    return {
      id,
      with: side(matched.filter((row) => carried(row).includes(id))),
      without: side(matched.filter((row) => !carried(row).includes(id))),
    };
  });
}

/** Skill efficacy: the ids in each row's Active Skills. */
export const skillEfficacy = (rows: readonly EfficacyInput[]) => efficacy(rows, (row) => row.skills);

/** Memory-item efficacy: the other delivered item ids of each row. */
export const memoryEfficacy = (rows: readonly EfficacyInput[]) => efficacy(rows, (row) => row.memory);
