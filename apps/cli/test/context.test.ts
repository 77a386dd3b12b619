import { execFile, execFileSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BIN,
  baseEnv,
  expectFailureLine,
  expectJsonFailure,
  expectUsageError,
  gitRepo,
  json,
  kxm,
  type RunResult,
  STACK_FRAME,
  tempDir,
} from "./support/cli.js";
import { POLICY_FLAGS, startTestHub } from "./support/hub.js";

// The context-and-memory guide's `kxm context` examples, run as printed: each command line goes through
// `/bin/sh -c` with `kxm` on PATH (a shim running the built CLI) and is piped to the real `jq`, against a real hub
// (serveHub, in this process, on a free port with a temporary SQLite file). Then every other `kxm context`
// command, and how they fail.

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const PROJECT = "demo";

// The guide's command lines and expected output, byte for byte ("Assemble a context packet", "Recall records",
// "Manage temporal state").
const GUIDE_GET = `kxm context get demo --role planner --task "Which branch do we release from?" --json \\
  | jq -c '{state: [.packet.currentState[].summary], gaps: .packet.unresolvedGaps, relevance: .audit.relevance}'`;
const GUIDE_GET_OUTPUT =
  '{"state":["Releases are cut from the main branch"],"gaps":[],"relevance":{"taskTokens":2,"matchedCandidates":1,"selected":[0.791]}}';
const GUIDE_RECALL = `kxm context recall demo --query "release branch" --json | jq -c '.items[] | {kind, status, origin: .sourceType, relevance}'`;
const GUIDE_RECALL_OUTPUT = '{"kind":"state","status":"current","origin":"peer","relevance":0.791}';
const GUIDE_PROPOSAL = {
  key: "release.branch",
  summary: "Releases are cut from the main branch",
  authority: "evidence" as const,
  confidence: "verified" as const,
  evidenceRefs: ["pr:12"],
};
const GUIDE_PROMOTE = `kxm context promote demo <proposal-id> --evidence review:pr-12 --json \\
  | jq -c '.state | {status, authority, origin: .provenance.sourceType, evidenceRefs}'`;
const GUIDE_PROMOTE_OUTPUT =
  '{"status":"current","authority":"evidence","origin":"peer","evidenceRefs":["pr:12","review:pr-12"]}';
const GUIDE_STATE = `kxm context state demo release.branch --json | jq -c '.state | {summary, status, authority}'`;
const GUIDE_STATE_OUTPUT =
  '{"summary":"Releases are cut from the main branch","status":"current","authority":"evidence"}';
const GUIDE_STATE_AS_OF = "kxm context state demo release.branch --as-of 2026-09-01T00:00:00Z --json";

function requireJq(): void {
  try {
    execFileSync("jq", ["--version"], { stdio: "pipe" });
  } catch {
    throw new Error(
      "jq is not on PATH: install jq (apt-get install -y jq, brew install jq) to run the guide's examples",
    );
  }
}

interface Hub {
  url: string;
  close(): Promise<void>;
}

let hub: Hub;
let admin: HubClient;
let agent: HubClient;
let checkout: string;
let shim: string;

/** The environment of every CLI call: the hub's URL and the admin token, unless a test overrides them. */
function hubEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN, ...extra };
}

function cli(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return kxm(args, { cwd: checkout, env: hubEnv(env) });
}

/** Runs a command line as printed in the guide, through /bin/sh, with `kxm` the built CLI. */
function sh(line: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env = baseEnv({ ...hubEnv(), PATH: `${shim}:${process.env.PATH ?? ""}` });
    execFile("/bin/sh", ["-c", line], { cwd: checkout, env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else {
        expect(stderr, `${line} printed a stack trace`).not.toMatch(STACK_FRAME);
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      }
    });
  });
}

/** A TCP port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  requireJq();
  hub = await startTestHub(ADMIN_TOKEN);
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  checkout = await gitRepo("kxm-cli-demo-");
  shim = tempDir("kxm-cli-shim-");
  await writeFile(join(shim, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(join(shim, "kxm"), 0o755);

  // Register the project and an agent key through the CLI; the agent proposes the guide's state value.
  const add = await cli(["hub", "projects", "add", PROJECT, "--json"]);
  expect(add.code, add.stderr).toBe(0);
  const key = await cli(["hub", "agents", "add", PROJECT, "planner", "--json"]);
  expect(key.code, key.stderr).toBe(0);
  agent = createHubClient({ baseUrl: hub.url, token: json<{ key: string }>(key).key });
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe("the guide's kxm context examples, as printed", () => {
  test("propose (agent), promote, then get, recall and state print the guide's lines", {
    timeout: 60_000,
  }, async () => {
    const { proposalId } = await agent.proposeState({ params: { project: PROJECT }, body: GUIDE_PROPOSAL });

    // Nothing is current yet: the planner's packet is empty and the key has no value.
    const before = await cli(["context", "state", PROJECT, "release.branch"]);
    expectFailureLine(before, "context state", /.+/);

    const promote = await sh(GUIDE_PROMOTE.replace("<proposal-id>", proposalId));
    expect(promote.stderr).toBe("");
    expect(promote.stdout).toBe(`${GUIDE_PROMOTE_OUTPUT}\n`);

    const get = await sh(GUIDE_GET);
    expect(get.stderr).toBe("");
    expect(get.stdout).toBe(`${GUIDE_GET_OUTPUT}\n`);

    const recall = await sh(GUIDE_RECALL);
    expect(recall.stderr).toBe("");
    expect(recall.stdout).toBe(`${GUIDE_RECALL_OUTPUT}\n`);

    const state = await sh(GUIDE_STATE);
    expect(state.stderr).toBe("");
    expect(state.stdout).toBe(`${GUIDE_STATE_OUTPUT}\n`);

    // 2026-09-01 is before any value of the key: not_found, exit 1; one line without --json.
    const asOf = await sh(GUIDE_STATE_AS_OF);
    expectJsonFailure(asOf, "not_found");
    const asOfHuman = await cli([
      "context",
      "state",
      PROJECT,
      "release.branch",
      "--as-of",
      "2026-09-01T00:00:00Z",
    ]);
    expectFailureLine(asOfHuman, "context state", /.+/);
  });
});

describe("--json prints exactly the route's answer", () => {
  test("get, recall, state, state --history and explain", async () => {
    const request = { role: "planner", task: "Which branch do we release from?" };
    const [get, recall, state, history] = await Promise.all([
      cli(["context", "get", PROJECT, "--role", request.role, "--task", request.task, "--json"]),
      cli(["context", "recall", PROJECT, "--query", "release branch", "--limit", "5", "--json"]),
      cli(["context", "state", PROJECT, "release.branch", "--json"]),
      cli(["context", "state", PROJECT, "release.branch", "--history", "--json"]),
    ]);
    for (const result of [get, recall, state, history]) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe("");
    }
    const params = { project: PROJECT };
    expect(json(get)).toEqual(await admin.getContext({ params, body: request }));
    expect(json(recall)).toEqual(await admin.recall({ params, body: { query: "release branch", limit: 5 } }));
    const current = await admin.getState({ params: { ...params, key: "release.branch" } });
    expect(json(state)).toEqual(current);
    expect(json(history)).toEqual(await admin.stateHistory({ params: { ...params, key: "release.branch" } }));

    const explain = await cli(["context", "explain", PROJECT, current.state.id, "--json"]);
    expect(explain.code, explain.stderr).toBe(0);
    const explained = json<{ id: string; exists: boolean }>(explain);
    expect(explained).toEqual(await admin.explain({ params: { ...params, itemId: current.state.id } }));
    expect(explained.exists).toBe(true);
  });

  test("get passes --budget, --kinds, --run and --stage through to the request", async () => {
    const result = await cli([
      "context",
      "get",
      PROJECT,
      "--role",
      "implementer",
      "--task",
      "release branch",
      "--budget",
      "4000",
      "--kinds",
      "state,knowledge",
      "--run",
      "run-1",
      "--stage",
      "test",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { audit, packet } = json<{
      audit: { request: Record<string, unknown> };
      packet: { budgetTokens: number };
    }>(result);
    expect(audit.request).toEqual({
      project: PROJECT,
      role: "implementer",
      task: "release branch",
      budgetTokens: 4000,
      includeKinds: ["state", "knowledge"],
      runId: "run-1",
      stage: "test",
    });
    expect(packet.budgetTokens).toBe(4000);
  });
});

describe("human output", () => {
  test("get prints the sections with item ids and summaries, the gaps and the relevance", async () => {
    const { state } = await admin.getState({ params: { project: PROJECT, key: "release.branch" } });
    const result = await cli([
      "context",
      "get",
      PROJECT,
      "--role",
      "planner",
      "--task",
      "Which branch do we release from?",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^Context packet for demo, role planner: 1 item selected of 1 candidate, \d+ of 16000 tokens$/,
    );
    expect(lines.slice(1)).toEqual([
      "Current state (1)",
      `  ${state.id}  0.791  [release.branch] Releases are cut from the main branch`,
      "Gaps: none",
      "Origins: peer 1",
      // The promoted proposal is consumed (rejected), so it is excluded from the pool.
      "Relevance: 2 task tokens, 1 matched candidate; 1 superseded or rejected excluded",
    ]);
  });

  test("an empty pool: no items, and the hub's gap", async () => {
    const project = "empty-project";
    await admin.createProject({ body: { id: project } });
    const result = await cli(["context", "get", project, "--role", "critic", "--task", "anything"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("No items selected.\n");
    expect(result.stdout).toContain("Gap: no context records exist for this project yet\n");
  });

  test("recall, state, state --history and explain", async () => {
    const { state } = await admin.getState({ params: { project: PROJECT, key: "release.branch" } });
    const [recall, current, history, explain] = await Promise.all([
      cli(["context", "recall", PROJECT, "--query", "release branch"]),
      cli(["context", "state", PROJECT, "release.branch"]),
      cli(["context", "state", PROJECT, "release.branch", "--history"]),
      cli(["context", "explain", PROJECT, state.id]),
    ]);
    expect(recall.stdout).toBe(
      `1 record in demo\n  0.791  ${state.id}  state (current), evidence, verified, origin peer` +
        ` (${state.provenance.sourceRef})\n`,
    );
    const currentLines = current.stdout.split("\n");
    expect(currentLines[0]).toBe("release.branch = Releases are cut from the main branch");
    expect(currentLines[1]).toMatch(new RegExp(`^  ${state.id}, current, evidence, verified, origin peer`));
    expect(current.stdout).toContain("  evidence: pr:12, review:pr-12\n");
    expect(history.stdout).toMatch(/^release\.branch: 2 records\n/);
    expect(history.stdout).toContain(`  current     ${state.id}  since ${state.validFrom}  Releases are cut`);
    expect(history.stdout).toMatch(
      /^ {2}rejected {4}\S+ {2}\S+ to \S+ {2}Releases are cut from the main branch$/m,
    );
    expect(explain.stdout).toContain(`${state.id}: state, evidence, verified, origin peer`);
    expect(explain.stdout).toContain("Evidence: pr:12, review:pr-12\n");
    for (const result of [recall, current, history, explain]) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe("");
    }
  });

  test("explain of an unknown item says so", async () => {
    const [asJson, human] = await Promise.all([
      cli(["context", "explain", PROJECT, "state_nope", "--json"]),
      cli(["context", "explain", PROJECT, "state_nope"]),
    ]);
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(json(asJson)).toEqual(await admin.explain({ params: { project: PROJECT, itemId: "state_nope" } }));
    expect(json<{ exists: boolean }>(asJson).exists).toBe(false);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe("state_nope: no such item in demo\n");
  });
});

describe("propose and promote as an operator", () => {
  test("an operator's proposal is human origin and prints its id; kxm-admin may not promote it", async () => {
    const result = await cli(["context", "propose", PROJECT, ...POLICY_FLAGS, "--evidence", "review:ops-3"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const match = /^Proposed (\S+) for deploy\.window\n$/.exec(result.stdout);
    expect(match, result.stdout).not.toBeNull();
    const proposalId = match?.[1] ?? "";

    const { items } = await admin.stateHistory({ params: { project: PROJECT, key: "deploy.window" } });
    expect(items.map((item) => [item.id, item.status, item.provenance.sourceType, item.authority])).toEqual([
      [proposalId, "proposed", "human", "policy"],
    ]);

    const promote = await cli(["context", "promote", PROJECT, proposalId, "--evidence", "review:ops-4"]);
    expectFailureLine(promote, "context promote", /.+/);
    const promoteJson = await cli(["context", "promote", PROJECT, proposalId, "--evidence", "x", "--json"]);
    expectJsonFailure(promoteJson, "state_promotion_invalid");
  });

  test("propose --json is the hub's {proposalId}; an agent's claim is capped by its origin", async () => {
    const result = await cli([
      "context",
      "propose",
      PROJECT,
      "--key",
      "ci.runner",
      "--summary",
      "CI runs on the shared runners",
      "--authority",
      "evidence",
      "--confidence",
      "probable",
      "--evidence",
      "ci:config",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const answer = json(result);
    expect(Object.keys(answer)).toEqual(["proposalId"]);
    expect(typeof answer.proposalId).toBe("string");
  });

  test("promote of an unknown proposal fails with state_proposal_not_found", async () => {
    const result = await cli(["context", "promote", PROJECT, "state_unknown", "--evidence", "x", "--json"]);
    expectJsonFailure(result, "state_proposal_not_found");
  });
});

describe("episodes", () => {
  test("newest first, paged with --limit and --cursor, --run for one run; --json is the route's answer", async () => {
    const params = { project: PROJECT };
    const runs: string[] = [];
    for (const [workflow, outcome] of [
      ["release", "succeeded"],
      ["nightly", "failed"],
    ] as const) {
      const { run } = await agent.startRun({ params, body: { workflow } });
      await agent.finishRun({
        params: { ...params, runId: run.id },
        body: { outcome, ...(outcome === "failed" ? { failingStep: "test" } : {}) },
      });
      runs.push(run.id);
      // Distinct finishing times, so "newest first" has one answer.
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const all = await cli(["context", "episode", PROJECT, "--json"]);
    expect(all.code, all.stderr).toBe(0);
    expect(json(all)).toEqual(await admin.episodes({ params }));
    const firstPage = await cli(["context", "episode", PROJECT, "--limit", "1", "--json"]);
    const page = json<{ items: Array<{ id: string; summary: string }>; nextCursor?: string }>(firstPage);
    expect(page).toEqual(await admin.episodes({ params, query: { limit: 1 } }));
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    const nextPage = await cli([
      "context",
      "episode",
      PROJECT,
      "--limit",
      "1",
      "--cursor",
      page.nextCursor ?? "",
      "--json",
    ]);
    const next = json<{ items: Array<{ id: string }> }>(nextPage);
    expect(next.items).toHaveLength(1);
    expect(next.items[0]?.id).not.toBe(page.items[0]?.id);

    const human = await cli(["context", "episode", PROJECT, "--limit", "1"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`  ${page.items[0]?.id}  `);
    expect(human.stdout).toContain(`More: kxm context episode demo --limit 1 --cursor ${page.nextCursor}\n`);

    const oneRun = await cli(["context", "episode", PROJECT, "--run", runs[0] ?? "", "--json"]);
    expect(json(oneRun)).toEqual(await admin.episodes({ params, query: { runId: runs[0] ?? "" } }));
    expect(json<{ items: unknown[] }>(oneRun).items).toHaveLength(1);
  });
});

describe.concurrent("failures: one line, exit 1, no stack", () => {
  test.for([
    ["context get", ["context", "get", PROJECT, "--role", "planner", "--task", "x"]],
    ["context recall", ["context", "recall", PROJECT, "--query", "x"]],
    ["context state", ["context", "state", PROJECT, "release.branch"]],
    ["context episode", ["context", "episode", PROJECT]],
    ["context explain", ["context", "explain", PROJECT, "x"]],
    ["context promote", ["context", "promote", PROJECT, "x", "--evidence", "y"]],
  ] as const)("%s without KXM_AUTH_TOKEN: invalid_auth, saying it is unset", async ([command, args]) => {
    const [human, asJson] = await Promise.all([
      cli(args, { KXM_AUTH_TOKEN: undefined }),
      cli([...args, "--json"], { KXM_AUTH_TOKEN: undefined }),
    ]);
    expectFailureLine(human, command, /^the hub refused the admin token \(KXM_AUTH_TOKEN is unset\)/);
    expectJsonFailure(asJson, "invalid_auth", /KXM_AUTH_TOKEN is unset/);
  });

  test("a wrong KXM_AUTH_TOKEN: invalid_auth", async () => {
    const env = { KXM_AUTH_TOKEN: "not-the-admin-token-at-all" };
    const args = ["context", "get", PROJECT, "--role", "planner", "--task", "x"];
    const [human, asJson] = await Promise.all([cli(args, env), cli([...args, "--json"], env)]);
    expectFailureLine(
      human,
      "context get",
      /^the hub refused the admin token \(KXM_AUTH_TOKEN does not match/,
    );
    expectJsonFailure(asJson, "invalid_auth");
  });

  test("the hub is down: hub_unreachable, naming the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const args = ["context", "recall", PROJECT, "--query", "x"];
    const [human, asJson, flag] = await Promise.all([
      cli(args, { KXM_HUB_URL: url }),
      cli([...args, "--json"], { KXM_HUB_URL: url }),
      cli([...args, "--hub", url], { KXM_HUB_URL: undefined }),
    ]);
    const message = expectFailureLine(human, "context recall", /^cannot reach the hub at /);
    expect(message).toContain(url);
    expect(message).toContain("ECONNREFUSED");
    expectJsonFailure(asJson, "hub_unreachable", new RegExp(url.replaceAll(".", "\\.")));
    expectFailureLine(
      flag,
      "context recall",
      new RegExp(`^cannot reach the hub at ${url.replaceAll(".", "\\.")}`),
    );
  });

  test("--hub overrides KXM_HUB_URL", async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const result = await cli(["context", "state", PROJECT, "release.branch", "--hub", hub.url, "--json"], {
      KXM_HUB_URL: down,
    });
    expect(result.code, result.stderr).toBe(0);
  });

  test("an unknown project: not_found", async () => {
    const result = await cli(["context", "get", "nope", "--role", "planner", "--task", "x", "--json"]);
    expectJsonFailure(result, "not_found");
  });

  test("a bad --hub or KXM_HUB_URL, or a bad option, is a usage error (exit 2)", async () => {
    const args = ["context", "recall", PROJECT, "--query", "x"];
    const [flag, variable, kind, exclusive] = await Promise.all([
      cli([...args, "--hub", "ftp://example.com"]),
      cli(args, { KXM_HUB_URL: "not a url" }),
      cli([...args, "--kinds", "state,bogus"]),
      cli(["context", "state", PROJECT, "k", "--history", "--as-of", "2026-09-01T00:00:00Z"]),
    ]);
    expectUsageError(flag, "context recall", /^--hub: ftp:\/\/example\.com is not an http/);
    expectUsageError(variable, "context recall", /^environment variable KXM_HUB_URL must be/);
    expectUsageError(kind, "context recall", /bogus/);
    expectUsageError(exclusive, "context state", /--history|--as-of/);
  });
});
