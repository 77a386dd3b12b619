// @ts-check
// The start-up section: each process's start-up time beside Node's own and its target.
import { ms, table } from "./format.mjs";

/**
 * Each process's p50 and p95, and its p50 as a multiple of Node's alone, beside its target.
 * @param {any} startup
 */
export function startupReport(startup) {
  if ("skipped" in startup) return `Not measured: ${startup.skipped}.`;
  /** @param {string} name @param {any} stats @param {string} target */
  const row = (name, stats, target) => [
    name,
    ms(stats.p50),
    ms(stats.p95),
    String(stats.n),
    `${(stats.p50 / startup.node.p50).toFixed(2)}x`,
    target,
  ];
  return table(
    ["process", "p50 ms", "p95 ms", "runs", "p50 / node", "target"],
    [
      row("node -e 0", startup.node, "-"),
      row("kxm --version", startup.kxm, "at most 1.5x"),
      row("kxm memory brief", startup.brief, "at most 2.5x"),
      row("kxm memory revision", startup.revision, "at most 2.5x"),
    ],
    ["l", "r", "r", "r", "r", "l"],
  );
}
