import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { figuresOf, markdownReport } from "../src/report.mjs";

// The suite's own harness: its arguments and its report. The scenarios themselves run in `.ci/run` through
// `npm run reliability -- --short`, over the built packages.
const main = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "main.mjs");

function reliability(...args: string[]) {
  return spawnSync(process.execPath, [main, ...args], { encoding: "utf8", timeout: 20_000 });
}

describe("pnpm reliability arguments", () => {
  test.each([
    [["--frobnicate"], "unknown argument --frobnicate"],
    [["--only", "no-such-scenario"], "unknown scenario no-such-scenario"],
    [["--only"], "--only needs a value"],
    [["--seed", "-3"], "--seed takes a whole number"],
    [["--docs", "--short"], "--docs takes the full run of every scenario"],
  ])("%j is refused with one line and exit 2", (args, message) => {
    const run = reliability(...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(message);
  });

  test("--help lists the scenarios", () => {
    const run = reliability("--help");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/scenarios: .*durability/);
  });
});

describe("the report", () => {
  test("marks a figure that did not hold, and a scenario that threw, in the summary", () => {
    const outcomes = [
      {
        name: "a",
        title: "Held and not",
        ms: 1200,
        result: {
          tried: "Tried 3 things.",
          figures: [
            { label: "errors", value: "0", goal: "0", held: true },
            { label: "leaks | pipes", value: "2", goal: "0", held: false },
          ],
          notes: ["A note."],
        },
      },
      { name: "b", title: "Threw", ms: 5, error: "Error: boom" },
    ];
    const report = markdownReport(outcomes, { mode: "short", date: "2026-12-02" });
    expect(report).toContain("| Held and not | errors | 0 | 0 | yes |");
    expect(report).toContain("| Held and not | leaks \\| pipes | 2 | 0 | **no** |");
    expect(report).toContain("| Threw | completed | no: it threw | yes | **no** |");
    expect(report).toContain("Tried 3 things. (1.2 s)");
    expect(report).toContain("Error: boom");
    expect(figuresOf(outcomes[1]!)).toEqual([
      { label: "completed", value: "no: it threw", goal: "yes", held: false },
    ]);
  });
});
