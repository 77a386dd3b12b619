import { compareCodeUnits } from "@kxm/contract";
import type { Hook } from "@oclif/core";
import { terminalJson, terminalLine } from "../terminal-text.js";

// An unknown command is a usage error like any other (exit 2, one line and a pointer to the help, or the error as
// JSON on stdout with --json), and it names the closest command or topic when one is near enough to be a typo.

/** The Levenshtein distance between two strings, by code unit. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The command or topic closest to `typed` (words separated by spaces), if it is within a third of its length (at
 * least 2 edits), ties going to the first in code-unit order; else the longest command or topic that the typed
 * line starts with (`memory brief extra`, `memory brief`); else none.
 */
export function closestCommand(typed: string, known: readonly string[]): string | undefined {
  const sorted = [...known].sort(compareCodeUnits);
  let best: { name: string; distance: number } | undefined;
  for (const name of sorted) {
    const distance = editDistance(typed, name);
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best !== undefined && best.distance <= Math.max(2, Math.floor(typed.length / 3))) return best.name;
  return sorted.filter((name) => typed.startsWith(`${name} `)).sort((a, b) => b.length - a.length)[0];
}

const hook: Hook<"command_not_found"> = async function (options) {
  const separator = options.config.topicSeparator;
  const spaced = (id: string) => id.split(":").join(separator);
  const typed = spaced(options.id);
  const known = [...options.config.commandIDs, ...options.config.topics.map((topic) => topic.name)].map(
    spaced,
  );
  const suggestion = closestCommand(typed, known);
  const message = `${typed} is not a kxm command${suggestion === undefined ? "" : `; did you mean ${suggestion}?`}`;
  const argv = options.argv ?? [];
  const end = argv.indexOf("--");
  if ((end === -1 ? argv : argv.slice(0, end)).includes("--json")) {
    process.stdout.write(terminalJson({ error: { code: "invalid_usage", message } }));
  } else {
    const help = suggestion === undefined ? "kxm --help" : `kxm ${suggestion} --help`;
    process.stderr.write(`${terminalLine(message)}\nSee: ${terminalLine(help)}\n`);
  }
  return this.exit(2);
};

export default hook;
