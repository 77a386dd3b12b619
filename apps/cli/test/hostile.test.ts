import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ServingHub } from "@kxm/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliCase,
  type CliResult,
  CONTROL,
  cliCases,
  judge,
  limited,
  prepareProjects,
  runCase,
} from "../../../reliability/src/lib/cli-cases.mjs";
import { type FakeHub, refusingUrl, startFakeHub } from "../../../reliability/src/lib/fake-hubs.mjs";
import { gitRepo, kxm, memoryFile, put, tempDir } from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// The hostile table (reliability/src/lib/cli-cases.mjs, shared with the cli-bad-input scenario) against the built
// CLI: every row exits non-zero with one line on stderr (a usage error adds its See: line), no stack trace, and no
// escape or control character on stdout or stderr. The hubs that misbehave are fake TCP servers on loopback; the
// over-limit and wiki rows go to a real hub.

const ADMIN = "hostile-admin-token-0123456789abcdef";

let hub: ServingHub;
const fakes: FakeHub[] = [];
let rows: CliCase[] = [];
const results = new Map<string, CliResult>();
let folders: Record<string, string> = {};

beforeAll(async () => {
  hub = await startTestHub(ADMIN);
  const created = await fetch(`${hub.url}/v1/projects`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ id: "fixture" }),
  });
  expect(created.status).toBe(201);
  const [garbage, html, problem, hang] = await Promise.all([
    startFakeHub("garbage"),
    startFakeHub("html"),
    startFakeHub("problem"),
    startFakeHub("hang"),
  ]);
  fakes.push(garbage, html, problem, hang);
  const scratch = tempDir("kxm-cli-hostile-");
  folders = prepareProjects(join(scratch, "projects"));
  const home = join(scratch, "home");
  mkdirSync(home);
  rows = cliCases({
    real: hub.url,
    token: ADMIN,
    refusing: await refusingUrl(),
    garbage: garbage.url,
    html: html.url,
    problem: problem.url,
    hang: hang.url,
    file: folders.file!,
  });
  // Two at a time: the machine is small and each start-up of the CLI costs a few hundred milliseconds.
  const answers = await limited(
    rows.map((row) => () => runCase(row, folders, { home })),
    2,
  );
  for (const [index, row] of rows.entries()) results.set(row.name, answers[index]!);
}, 600_000);

afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()));
  await hub?.close();
});

// The rows are known before the hubs start (only their URLs change), so each gets its own test.
const names = cliCases({
  real: "",
  token: "",
  refusing: "",
  garbage: "",
  html: "",
  problem: "",
  hang: "",
  file: "",
}).map((row) => row.name);

describe("the CLI under hostile invocations", () => {
  it("has one row for each name", () => {
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(names)("%s: fails in one line, no stack, no control characters", (name) => {
    const row = rows.find((candidate) => candidate.name === name)!;
    const result = results.get(name)!;
    const shown = `kxm ${row.args.join(" ").slice(0, 200)}\nexit ${result.code}\nstdout: ${JSON.stringify(result.stdout.slice(0, 400))}\nstderr: ${JSON.stringify(result.stderr.slice(0, 400))}`;
    expect(judge(row, result), shown).toEqual({
      zeroExit: false,
      wrongCode: false,
      shape: undefined,
      stack: false,
      control: false,
    });
  });
});

describe("what the rows print", () => {
  it("run status lists the good run and names each broken run and its file", () => {
    const result = results.get("listing runs with broken ones")!;
    expect(result.stdout).toMatch(
      /^run_good {2}ship {2}pending {2}2026-01-01T00:00:00.000Z {2}0\/1 steps\n$/,
    );
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toEqual([
      "run status: run run_array is broken: .kxm/runs/run_array/run.json (value): Invalid input: expected object, received array",
      "run status: run run_empty is broken: .kxm/runs/run_empty/run.json: is empty, not JSON",
      "run status: run run_osc is broken: .kxm/runs/run_osc/run.json: is not valid JSON",
      expect.stringMatching(
        /^run status: run run_schema is broken: \.kxm\/runs\/run_schema\/run\.json project: /,
      ),
      "run status: run run_truncated is broken: .kxm/runs/run_truncated/run.json: is not valid JSON",
    ]);
  });

  it("run status --json lists the good run and the broken ones, exactly", () => {
    const value = JSON.parse(results.get("listing runs with broken ones, --json")!.stdout) as {
      runs: { runId: string }[];
      broken: { runId: string; code: string; problem: string }[];
    };
    expect(value.runs.map((run) => run.runId)).toEqual(["run_good"]);
    expect(value.broken.map((run) => [run.runId, run.code])).toEqual([
      ["run_array", "invalid_request"],
      ["run_empty", "invalid_request"],
      ["run_osc", "invalid_request"],
      ["run_schema", "invalid_request"],
      ["run_truncated", "invalid_request"],
    ]);
  });

  it("a hub's problem detail arrives without its OSC, human and JSON", () => {
    expect(results.get("a hub with an OSC in its problem")!.stderr).toBe(
      "context recall failed: bad request\n",
    );
    const json = results.get("a hub with an OSC in its problem, --json")!.stdout;
    // JSON keeps the value exact, escaped: parsed back, the detail is the hub's.
    expect(JSON.parse(json)).toEqual({
      error: { code: "invalid_request", message: "\u001b]0;owned\u0007bad request" },
    });
  });

  it("a hub that hangs is a one-line timeout", () => {
    expect(results.get("a hub that hangs")!.stderr).toMatch(
      /^hub operators list failed: cannot reach the hub at http:\/\/127\.0\.0\.1:\d+: no answer within 1500 ms; start it/,
    );
  });

  it("names the file of each broken configuration file", () => {
    const lines: Record<string, RegExp> = {
      "a workflow that is not YAML":
        /^run prompt failed: \.kxm\/workflows\/unclosed\.yaml:\d+: is not valid YAML/,
      "a workflow that is a list":
        /^run start failed: \.kxm\/workflows\/list\.yaml:1: \(document\): must be object/,
      "agents.yaml that is not YAML": /^run start failed: \.kxm\/agents\.yaml/,
      "modes.yaml that is not YAML": /^explain failed: \.kxm\/modes\.yaml: /,
      "a memory fact that is not YAML (brief)": /^memory brief failed: \.kxm\/memory\/broken\.md: /,
      "a skill's metadata.json that is not JSON":
        /^skills list failed: \.kxm\/skills\/promoted\/skill_a\/metadata\.json: /,
    };
    for (const [name, line] of Object.entries(lines)) expect(results.get(name)!.stderr, name).toMatch(line);
  });
});

describe("text from files reaches the terminal stripped, and --json exact", () => {
  const hostile = "Use \u001b]0;owned\u0007pnpm\u001b[2J \u202eon\u009b2J Fridays";

  it("memory brief (the fast path) strips a fact's summary; --json keeps it, escaped", async () => {
    const root = await gitRepo();
    await put(root, ".kxm/memory/f.md", memoryFile("f", { summary: JSON.stringify(hostile) }));
    const [human, json] = await Promise.all([
      kxm(["memory", "brief"], { cwd: root }),
      kxm(["memory", "brief", "--json"], { cwd: root }),
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(CONTROL);
    expect(human.stdout).toContain("Use pnpm on Fridays (f)");
    expect(json.stdout).not.toMatch(CONTROL);
    expect((JSON.parse(json.stdout) as { facts: { summary: string }[] }).facts[0]!.summary).toBe(hostile);
  });

  it("run status strips a workflow name it lists", async () => {
    const root = await gitRepo();
    const step = {
      id: "build",
      agent: "coder",
      instructions: "x",
      requiredEvidence: [],
      allowedOutcomes: ["done"],
      permission: "write",
    };
    const run = {
      schema: "kxm.run.v1",
      runId: "run_x",
      project: "p",
      workflow: { name: hostile, steps: [step] },
      prompt: hostile,
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    await put(root, ".kxm/runs/run_x/run.json", JSON.stringify(run));
    const [list, one] = await Promise.all([
      kxm(["run", "status"], { cwd: root }),
      kxm(["run", "status", "run_x"], { cwd: root }),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe("run_x  Use pnpm on Fridays  pending  2026-01-01T00:00:00.000Z  0/1 steps\n");
    expect(one.stdout).not.toMatch(CONTROL);
    expect(one.stdout).toContain("Use pnpm on Fridays");
  });
});
