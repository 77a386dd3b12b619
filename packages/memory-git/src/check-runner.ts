// `kxm memory verify`: runs each fact's check in the checkout and records what it found.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { compareCodeUnits, KxmError } from "@kxm/contract";
import { type CheckRecord, type CheckResult, formatCheckRecords, readCheckRecords } from "./fact-checks.js";
import { writeFileWhole } from "./files.js";
import { gitHeadCommit } from "./git.js";
import { KXM_PATHS } from "./layout.js";
import { activeFacts } from "./load.js";
import type { MemoryFact } from "./memory-file.js";

/** Variables a check never sees: KXM's own credentials and settings, and the Steel deployment's. */
const SECRET_PREFIXES = ["KXM_", "STEEL_"] as const;

/** The environment a check runs with: this process's, less every `KXM_*` and `STEEL_*` variable. */
function checkEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix))) continue;
    out[name] = value;
  }
  return out;
}

const detached = process.platform !== "win32";

/** Ends the child's whole process group (a check's own children too), so nothing outlives the time limit. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (detached) process.kill(-child.pid, "SIGKILL");
    else child.kill("SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** How one check ended. */
interface CheckRun {
  result: CheckResult;
  exitCode: number | null;
  durationMs: number;
}

/**
 * Runs `command` (an argument vector, no shell) in `cwd` with `env`, stdin closed and its output discarded (it may
 * hold anything: nothing of it is kept or printed). At `timeoutMs` the process group is killed with SIGKILL and
 * the run is `timed_out`. Exit 0 is `passed`; another exit or a signal `failed`; a program that cannot be started
 * `not_started`. Never throws.
 */
function runCheck(
  command: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; clock?: () => number },
): Promise<CheckRun> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const elapsed = () => Math.max(0, Math.round(clock() - started));
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: CheckResult, exitCode: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result, exitCode, durationMs: elapsed() });
    };
    let child: ChildProcess;
    try {
      child = spawn(command[0]!, command.slice(1), {
        cwd: options.cwd,
        env: options.env,
        stdio: "ignore",
        detached,
        shell: false,
        windowsHide: true,
      });
    } catch {
      finish("not_started", null);
      return;
    }
    timer = setTimeout(() => {
      killGroup(child);
      child.unref();
      finish("timed_out", null);
    }, options.timeoutMs);
    child.on("error", () => finish("not_started", null));
    child.on("exit", (code) => {
      // A check that exits leaves no child running past it: its group is ended too.
      killGroup(child);
      finish(code === 0 ? "passed" : "failed", code);
    });
  });
}

/** One fact's verification, as `kxm memory verify` reports it. */
export interface FactVerification {
  id: string;
  file: string;
  onFailure: "report" | "withhold";
  record: CheckRecord;
}

/** @public What {@link verifyFacts} takes: the clock, the environment to strip, and which facts. */
export interface VerifyOptions {
  /** The time each record is stamped with. */
  now: () => Date;
  /** The environment a check starts from (less `KXM_*` and `STEEL_*`). */
  env: NodeJS.ProcessEnv;
  /** Only these fact ids (each must have a check); default every active fact with one. */
  ids?: readonly string[];
}

/**
 * Runs the check of every active fact that names one (or of `ids`), one at a time in id order, in `root`, and
 * writes `.kxm/memory-checks.json` with the new records (others kept; a record of a fact no longer in memory is
 * dropped). Returns the verifications in id order, the commit checked and the file's project-relative path.
 * An id of `ids` that names no active fact with a check is 404 `memory_check_not_found`, before anything runs.
 * Committing the file is the caller's choice: the hub reads it at HEAD only.
 */
export async function verifyFacts(
  root: string,
  options: VerifyOptions,
): Promise<{ file: string; commit: string | null; verifications: FactVerification[] }> {
  const facts = await activeFacts(root);
  const wanted = options.ids === undefined ? undefined : new Set(options.ids);
  const byId = new Map(facts.map((fact) => [fact.id, fact]));
  const unknown = [...(wanted ?? [])]
    .filter((id) => byId.get(id)?.check === undefined)
    .sort(compareCodeUnits);
  if (unknown.length > 0) {
    throw new KxmError(
      "memory_check_not_found",
      `no active fact with a check has the id ${unknown.join(", ")}`,
    );
  }
  const chosen: MemoryFact[] = facts.filter(
    (fact) => fact.check !== undefined && (wanted === undefined || wanted.has(fact.id)),
  );
  const commit = (await gitHeadCommit(root)) ?? null;
  const { records: old } = await readCheckRecords(root);
  const records = new Map<string, CheckRecord>();
  for (const [id, record] of old) if (byId.has(id)) records.set(id, record);
  const env = checkEnv(options.env);
  const verifications: FactVerification[] = [];
  for (const fact of chosen) {
    const check = fact.check!;
    const run = await runCheck(check.command, { cwd: root, env, timeoutMs: check.timeoutSeconds * 1000 });
    const record: CheckRecord = {
      verifiedAt: options.now().toISOString(),
      commit,
      command: [...check.command],
      result: run.result,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
    };
    records.set(fact.id, record);
    verifications.push({ id: fact.id, file: fact.file, onFailure: check.onFailure, record });
  }
  // With no check to run there is nothing to record: the file is neither created nor rewritten.
  if (chosen.length > 0)
    await writeFileWhole(join(root, KXM_PATHS.memoryChecks), formatCheckRecords(records));
  return { file: KXM_PATHS.memoryChecks, commit, verifications };
}
