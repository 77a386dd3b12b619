import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inCliTerms } from "../src/base.js";
import { expectFailureLine, expectJsonFailure, gitRepo, kxm, type RunResult } from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// A hub refusal names what the hub checked ("request body id", "query parameter asOf"); the CLI prints the
// argument or flag the operator typed instead. Real hub on a loopback port, real CLI processes.

const ADMIN_TOKEN = "test-admin-token-messages-0123456789";
let hub: { url: string; close(): Promise<void> };
let checkout: string;

function cli(args: readonly string[]): Promise<RunResult> {
  return kxm(args, { cwd: checkout, env: { KXM_HUB_URL: hub.url, KXM_AUTH_TOKEN: ADMIN_TOKEN } });
}

beforeAll(async () => {
  hub = await startTestHub(ADMIN_TOKEN);
  checkout = await gitRepo("kxm-cli-messages-");
  const add = await cli(["hub", "projects", "add", "demo"]);
  expect(add.code, add.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await hub?.close();
});

describe("hub refusals in the CLI's words", () => {
  test.concurrent.for([
    [
      "hub projects add",
      ["hub", "projects", "add", "bad id!"],
      "<id>: must be letters, digits, '.', '_' or '-'",
    ],
    ["context state", ["context", "state", "demo", "release.branch", "--as-of", "yesterday"], /^--as-of: /],
    ["context explain", ["context", "explain", "demo", "bad id"], /^<item-id>: must not contain white space/],
    ["context promote", ["context", "promote", "demo", "x y", "--evidence", "pr:1"], /^<proposal-id>: /],
    ["context review", ["context", "review", "demo", "bad id"], /^<entry>: /],
    ["hub agents add", ["hub", "agents", "add", "demo", "bad agent!"], /^<agent-id>: /],
    [
      "context get",
      ["context", "get", "demo", "--role", "planner", "--task", "x", "--budget", "5"],
      /^--budget: /,
    ],
    [
      "context get",
      ["context", "get", "demo", "--role", "planner", "--task", "x".repeat(2001)],
      /^--task: Too big/,
    ],
    ["context recall", ["context", "recall", "demo", "--query", "x", "--limit", "0"], /^--limit: /],
  ] as const)("kxm %s names the argument or flag", async ([command, args, message]) => {
    const result = await cli(args);
    const text = expectFailureLine(result, command, message);
    expect(text).not.toMatch(/request body|query parameter|path parameter/);
  });

  test("with --json the error's message names the flag too", async () => {
    const result = await cli([
      "context",
      "state",
      "demo",
      "release.branch",
      "--as-of",
      "yesterday",
      "--json",
    ]);
    expectJsonFailure(result, "invalid_request", /^--as-of: /);
  });
});

describe("inCliTerms", () => {
  test("maps fields to arguments and flags, an element of a repeated flag by position", () => {
    const flags = ["evidence", "budget", "kinds", "run"];
    expect(inCliTerms("request body evidenceRefs.1: Too big", [], flags)).toBe(
      "--evidence (value 2): Too big",
    );
    expect(inCliTerms("request body includeKinds.0: Invalid option", [], flags)).toBe(
      "--kinds (value 1): Invalid option",
    );
    expect(inCliTerms("request body runId: bad", [], flags)).toBe("--run: bad");
    expect(inCliTerms("path parameter entryId: bad", ["project", "entry"], flags)).toBe("<entry>: bad");
  });

  test("keeps a field no argument or flag carries, and any other message, as it is", () => {
    expect(inCliTerms("request body stage: bad", ["project"], ["role"])).toBe("the hub's field stage: bad");
    expect(inCliTerms("no project demo", ["project"], [])).toBe("no project demo");
  });
});
