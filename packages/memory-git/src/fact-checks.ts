// The record of fact checks (`kxm memory verify`) and the rules that decide, from it and a time, which facts are
// withheld: one module, so the hub, dispatch, brief and sync apply the same rule.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits } from "@kxm/contract";
import { z } from "zod";
import { KXM_PATHS } from "./layout.js";
import type { FactCheck, MemoryFact, MemoryProblem } from "./memory-file.js";

/** The `schema` of the record file. */
const MEMORY_CHECKS_SCHEMA = "kxm.memory-checks.v1";

/** How a check ended: exit 0, another exit (or a signal), killed at its time limit, or could not be started. */
const CHECK_RESULTS = ["passed", "failed", "timed_out", "not_started"] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

const CheckRecordSchema = z.strictObject({
  /** When the check finished, ISO 8601 UTC. */
  verifiedAt: z.iso.datetime({ offset: true }),
  /** The commit HEAD named when the check ran; null in a repository with no commit. */
  commit: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/)
    .nullable(),
  /** The argument vector run, exactly as the fact named it. */
  command: z.array(z.string()).min(1),
  result: z.enum(CHECK_RESULTS),
  /** The exit code (`passed`, `failed`); null when a signal ended it or it never ran. */
  exitCode: z.int().nullable(),
  durationMs: z.int().min(0),
});
/** What one fact's last check found. */
export type CheckRecord = z.infer<typeof CheckRecordSchema>;

const MemoryChecksSchema = z.strictObject({
  schema: z.literal(MEMORY_CHECKS_SCHEMA),
  facts: z.record(z.string(), CheckRecordSchema),
});

/** Fact id to its last check record. */
export type CheckRecords = ReadonlyMap<string, CheckRecord>;

/**
 * Parses the record file's text. Returns the records, or a problem naming the file and the rule (never a value)
 * when it is not JSON or not of the record's shape: then no record is trusted, so nothing is withheld for a check.
 */
export function parseCheckRecords(
  file: string,
  text: string,
): { records: CheckRecords } | { problem: MemoryProblem } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { problem: { file, field: "(file)", rule: "is not valid JSON" } };
  }
  const parsed = MemoryChecksSchema.safeParse(data);
  if (!parsed.success) {
    const path = parsed.error.issues[0]?.path.join(".") ?? "";
    return {
      problem: {
        file,
        field: path === "" ? "(file)" : path,
        rule: `must be a ${MEMORY_CHECKS_SCHEMA} record`,
      },
    };
  }
  return { records: new Map(Object.entries(parsed.data.facts)) };
}

/** The record file's text: facts by id (code-unit order), two-space JSON, a final newline. */
export function formatCheckRecords(records: CheckRecords): string {
  const facts: Record<string, CheckRecord> = {};
  for (const id of [...records.keys()].sort(compareCodeUnits)) {
    const record = records.get(id)!;
    facts[id] = {
      verifiedAt: record.verifiedAt,
      commit: record.commit,
      command: [...record.command],
      result: record.result,
      exitCode: record.exitCode,
      durationMs: record.durationMs,
    };
  }
  return `${JSON.stringify({ schema: MEMORY_CHECKS_SCHEMA, facts }, null, 2)}\n`;
}

function sameCommand(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/**
 * The record that speaks for the fact's check now: the fact's record when it ran the command the fact names today
 * (a record of an older command is stale and says nothing), else undefined.
 */
function currentRecord(
  check: FactCheck | undefined,
  record: CheckRecord | undefined,
): CheckRecord | undefined {
  if (check === undefined || record === undefined) return undefined;
  return sameCommand(check.command, record.command) ? record : undefined;
}

/** True when the fact's current record is anything but `passed`: the fact may no longer hold. */
export function checkFailing(fact: Pick<MemoryFact, "check">, record: CheckRecord | undefined): boolean {
  const current = currentRecord(fact.check, record);
  return current !== undefined && current.result !== "passed";
}

/** Why a fact is withheld from what agents are shown, or undefined. `expired` comes before `check_failed`. */
export type FactWithheldReason = "expired" | "check_failed";

/**
 * The one rule for an authored fact at time `nowMs`: `expired` once `expiresAt` is reached, else `check_failed`
 * when its check says `onFailure: withhold` and its current record failed, else undefined (served).
 */
export function factWithheldReason(
  fact: Pick<MemoryFact, "id" | "expiresAt" | "check">,
  records: CheckRecords,
  nowMs: number,
): FactWithheldReason | undefined {
  if (fact.expiresAt !== undefined && Date.parse(fact.expiresAt) <= nowMs) return "expired";
  if (fact.check?.onFailure === "withhold" && checkFailing(fact, records.get(fact.id))) return "check_failed";
  return undefined;
}

/** True once `reviewBy` is reached: still served, but due for review. */
export function reviewDue(reviewBy: string | undefined, nowMs: number): boolean {
  return reviewBy !== undefined && Date.parse(reviewBy) <= nowMs;
}

/** The check records of the work tree's record file; none when it is missing, a problem when it is malformed. */
export async function readCheckRecords(
  root: string,
): Promise<{ records: CheckRecords; problem?: MemoryProblem }> {
  let text: string;
  try {
    text = await readFile(join(root, KXM_PATHS.memoryChecks), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: new Map() };
    throw error;
  }
  const parsed = parseCheckRecords(KXM_PATHS.memoryChecks, text);
  return "records" in parsed ? parsed : { records: new Map(), problem: parsed.problem };
}
