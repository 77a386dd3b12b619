// @ts-check
// The CLI under bad input: the built `kxm` run against the hostile table of lib/cli-cases.mjs (the same rows as
// apps/cli/test/hostile.test.ts) and against generated variants: random escape and control sequences in a hub's
// problem document, in run.json fields that `run status` lists, and in memory facts the brief prints. The hubs
// that misbehave are fake (lib/fake-hubs.mjs): what is under test is the CLI, not the hub. The over-limit rows and
// the wiki output rows go to a real hub process.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliCases, judge, limited, prepareProjects, runCase } from "../lib/cli-cases.mjs";
import { refusingUrl, startFakeHub } from "../lib/fake-hubs.mjs";
import { ADMIN_TOKEN as ADMIN, call } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { seededRandom } from "../lib/random.mjs";
import { count } from "../lib/stats.mjs";

const PARALLEL = 2;

// What a hostile string is made of: every kind of sequence terminal-text.ts strips, and plain words between.
const PIECES = [
  "\u001b]0;owned\u0007",
  "\u001b]0;owned title with spaces\u001b\\",
  "\u001b]52;c;b3duZWQ=\u0007",
  "\u001b]8;;http://evil.example/\u001b\\link\u001b]8;;\u001b\\",
  "\u009d0;c1 title\u009c",
  "\u001b[2J\u001b[H",
  "\u001b[31;1m",
  "\u009b2J",
  "\u001b[?1049h",
  "\u001bPq#0;2;0;0;0\u001b\\",
  "\u001b_apc payload\u001b\\",
  "\u001b^pm payload\u001b\\",
  "\u001bXsos payload\u001b\\",
  "\u001b",
  "\u001bc",
  "\u0007",
  "\b\b\b",
  "\r",
  "\u0000",
  "\u007f",
  "\u0085",
  "\u202e",
  "\u2066",
  "\u2069",
  "\n",
];

/** A string of words and 1 to 6 hostile pieces. @param {() => number} next */
function hostile(next) {
  const parts = ["detail"];
  const pieces = 1 + Math.floor(next() * 6);
  for (let i = 0; i < pieces; i += 1) {
    parts.push(/** @type {string} */ (PIECES[Math.floor(next() * PIECES.length)]));
    parts.push(`word${Math.floor(next() * 100)}`);
  }
  return parts.join(" ");
}

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "cli-bad-input",
  title: "The CLI under bad input",
  order: 60,
  async run({ short, seed, scratch, progress }) {
    const variants = short ? 12 : 200;
    const next = seededRandom(seed);
    const folders = prepareProjects(join(scratch, "projects"));
    const home = join(scratch, "home");
    mkdirSync(home, { recursive: true });
    const real = await startHubProcess({
      dbPath: join(scratch, "kxm.db"),
      adminToken: ADMIN,
      env: { KXM_LOG_LEVEL: "silent" },
    });
    const fakes = {
      garbage: await startFakeHub("garbage"),
      html: await startFakeHub("html"),
      problem: await startFakeHub("problem"),
      hang: await startFakeHub("hang"),
    };
    try {
      const created = await call(real.url, "POST", "/v1/projects", { token: ADMIN, body: { id: "fixture" } });
      if (created.status !== 201) throw new Error(`createProject answered ${created.status}`);
      const rows = cliCases({
        real: real.url,
        token: ADMIN,
        refusing: await refusingUrl(),
        garbage: fakes.garbage.url,
        html: fakes.html.url,
        problem: fakes.problem.url,
        hang: fakes.hang.url,
        file: /** @type {string} */ (folders.file),
      });

      // Variants: each hostile string in a problem document (under its own base path, so that concurrent calls
      // get their own), in the workflow name of a run the listing prints, and in a fact's summary.
      const runsRoot = join(scratch, "projects", "variant-runs");
      const factsRoot = join(scratch, "projects", "variant-facts");
      mkdirSync(join(runsRoot, ".git"), { recursive: true });
      mkdirSync(join(factsRoot, ".git"), { recursive: true });
      mkdirSync(join(factsRoot, ".kxm", "memory"), { recursive: true });
      folders["variant-runs"] = runsRoot;
      folders["variant-facts"] = factsRoot;
      /** @type {import("../lib/cli-cases.mjs").CliCase[]} */
      const generated = [];
      const commands = [
        ["context", "recall", "fixture", "--query", "x"],
        ["context", "state", "fixture", "release.branch"],
        ["hub", "projects", "list"],
        ["hub", "agents", "list", "fixture"],
      ];
      for (let i = 0; i < variants; i += 1) {
        const text = hostile(next);
        const kind = i % 3;
        if (kind === 0) {
          fakes.problem.setProblem(text, `v${i}`);
          const json = i % 2 === 1;
          generated.push({
            name: `problem variant ${i}`,
            args: [
              .../** @type {string[]} */ (commands[i % commands.length]),
              "--hub",
              `${fakes.problem.url}/v${i}`,
              ...(json ? ["--json"] : []),
            ],
            env: { KXM_AUTH_TOKEN: ADMIN },
            exit: 1,
            json,
          });
        } else if (kind === 1) {
          const runId = `run_v${i}`;
          const dir = join(runsRoot, ".kxm", "runs", runId);
          mkdirSync(dir, { recursive: true });
          const run = {
            schema: "kxm.run.v1",
            runId,
            project: "fixture",
            workflow: {
              name: text,
              steps: [
                {
                  id: "build",
                  agent: "coder",
                  instructions: "x",
                  requiredEvidence: [],
                  allowedOutcomes: ["done"],
                  permission: "write",
                },
              ],
            },
            prompt: text,
            createdAt: "2026-01-01T00:00:00.000Z",
          };
          writeFileSync(join(dir, "run.json"), `${JSON.stringify(run)}\n`);
          generated.push({
            name: `run variant ${i}`,
            args: ["run", "status", runId],
            project: "variant-runs",
            exit: 0,
          });
        } else {
          const summary = JSON.stringify(text.replace(/\n/g, " "));
          writeFileSync(
            join(factsRoot, ".kxm", "memory", `v${i}.md`),
            `---\nschema: kxm.memory.v1\nid: v${i}\nscope: project\nkind: convention\nsummary: ${summary}\n` +
              "provenance:\n  sourceType: git\n  sourceRef: docs/x.md\nauthority: instruction\nconfidence: verified\n" +
              "lifecycle: active\n---\n",
          );
        }
      }
      // The listings print every generated name and summary at once, human and JSON (the fast path for the brief).
      generated.push(
        { name: "run listing of variants", args: ["run", "status"], project: "variant-runs", exit: 0 },
        {
          name: "run listing of variants, --json",
          args: ["run", "status", "--json"],
          project: "variant-runs",
          exit: 0,
          json: true,
        },
        { name: "brief of variants", args: ["memory", "brief"], project: "variant-facts", exit: 0 },
        {
          name: "brief of variants, --json",
          args: ["memory", "brief", "--json"],
          project: "variant-facts",
          exit: 0,
          json: true,
        },
      );

      const all = [...rows, ...generated];
      progress(`cli-bad-input: ${all.length} invocations, ${PARALLEL} at a time`);
      const results = await limited(
        all.map((row) => () => runCase(row, folders, { home, timeoutMs: 60_000 })),
        PARALLEL,
      );
      let zeroExits = 0;
      let wrongCodes = 0;
      let shapes = 0;
      let stacks = 0;
      let controls = 0;
      /** @type {string[]} */
      const notes = [];
      all.forEach((row, index) => {
        const result = /** @type {import("../lib/cli-cases.mjs").CliResult} */ (results[index]);
        const verdict = judge(row, result);
        const failed = row.exit === 0 ? result.code !== 0 : verdict.zeroExit;
        if (failed) zeroExits += row.exit === 0 ? 0 : 1;
        if (row.exit === 0 && result.code !== 0) wrongCodes += 1;
        else if (verdict.wrongCode) wrongCodes += 1;
        const shape = row.exit === 0 ? undefined : verdict.shape;
        if (shape !== undefined) shapes += 1;
        if (verdict.stack) stacks += 1;
        if (verdict.control) controls += 1;
        if (failed || verdict.wrongCode || shape !== undefined || verdict.stack || verdict.control) {
          if (notes.length < 8)
            notes.push(
              `${row.name}: exit ${result.code}${result.timedOut ? " (killed after 60 s)" : ""}` +
                `${shape === undefined ? "" : `, ${shape}`}` +
                `${verdict.stack ? ", stack trace" : ""}${verdict.control ? ", control character" : ""}`,
            );
        }
      });
      const expectedFailures = all.filter((row) => row.exit !== 0).length;
      return {
        tried:
          `${count(all.length)} invocations of the built CLI, ${PARALLEL} at a time: the ${rows.length}-row ` +
          `hostile table (unknown flags and commands, over-limit inputs, broken files, unwritable outputs, hubs ` +
          `that refuse, answer garbage or HTML, put escapes in their problems, or hang) and ${generated.length} ` +
          "generated variants with random escape and control sequences in hub problems, run.json and memory facts.",
        figures: [
          {
            label: "Zero exits where non-zero was expected",
            value: `${zeroExits} of ${expectedFailures}`,
            goal: "0",
            held: zeroExits === 0,
          },
          {
            label: "Exit codes other than documented (1 failure, 2 usage, 0 success)",
            value: String(wrongCodes),
            goal: "0",
            held: wrongCodes === 0,
          },
          {
            label: "Errors not in the documented shape (one line; usage adds See:) or with a stack trace",
            value: String(shapes + stacks),
            goal: "0",
            held: shapes + stacks === 0,
          },
          {
            label: "Outputs with an escape or control character reaching the terminal",
            value: `${controls} of ${all.length}`,
            goal: "0",
            held: controls === 0,
          },
        ],
        notes: [
          "The misbehaving hubs are fake TCP servers on loopback: the CLI is under test, not the hub.",
          ...notes,
        ],
      };
    } finally {
      for (const fake of Object.values(fakes)) await fake.close();
      await real.stop();
    }
  },
};
