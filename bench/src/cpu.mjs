// @ts-check
// CPU time from Linux's /proc, to say where a load's time goes: a process's own, a PostgreSQL server's with its
// backends, and the whole machine's. Figures are milliseconds of CPU (one core busy for a second is 1,000).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Milliseconds per clock tick, the unit of /proc's CPU times (10 where CLK_TCK is 100). */
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces), so that index 0 is the state,
 * 1 the parent's pid, 11 and 12 user and system time, 13 and 14 those of the waited-for children.
 * @param {number | string} pid
 */
function statFields(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** @param {string[]} fields @param {number} from @param {number} to */
const ticks = (fields, from, to) => fields.slice(from, to + 1).reduce((n, field) => n + Number(field), 0);

/** The CPU a live process has used, user and system (0 once it is gone). @param {number} pid */
export function processCpuMs(pid) {
  const fields = statFields(pid);
  return fields === undefined ? 0 : ticks(fields, 11, 12) * TICK_MS;
}

/**
 * The CPU a server of several processes has used: its main process's own, its live children's, and what its
 * children that have exited used (the main process's waited-for time), so that a child ending between two readings
 * keeps its share. For PostgreSQL, the postmaster with its backends and background workers; for
 * `kxm hub serve --workers`, the primary with its worker processes.
 * @param {number} pid the main process (a postmaster, a cluster primary)
 */
export function serverCpuMs(pid) {
  const own = statFields(pid);
  if (own === undefined) return 0;
  let total = ticks(own, 11, 14);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (fields !== undefined && Number(fields[1]) === pid) total += ticks(fields, 11, 12);
  }
  return total * TICK_MS;
}

/** The whole machine's CPU so far, over every core: busy (neither idle nor waiting on I/O) and in all. */
export function machineCpuMs() {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  // cpu user nice system idle iowait irq softirq steal (guest time is already in user).
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((n, value) => n + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busyMs: (total - idle) * TICK_MS, totalMs: total * TICK_MS };
}
