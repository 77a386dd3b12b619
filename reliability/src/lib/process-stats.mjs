// @ts-check
// What Linux says about a running process: its resident memory and its open file descriptors.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The process's resident set size in bytes (VmRSS of /proc/<pid>/status). @param {number} pid */
export function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(match[1]) * 1024;
}

/** How many file descriptors the process holds open. @param {number} pid */
export function openFds(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * The process's open descriptors by kind (socket, pipe, anon_inode, or the file's path), for a note.
 * @param {number} pid
 * @returns {Map<string, number>}
 */
export function fdKinds(pid) {
  const kinds = new Map();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    const kind = /^(\w+):\[/.exec(target)?.[1] ?? /^anon_inode:\[?(\w+)/.exec(target)?.[1] ?? target;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

/** Bytes as MiB with one decimal. @param {number} bytes */
export const mib = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MiB`;
