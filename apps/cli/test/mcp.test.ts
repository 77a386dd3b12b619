import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { readHubEnv, type ServingHub, serveHub } from "@kxm/hub";
import { freePort } from "@kxm/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, baseEnv, kxm } from "./support/cli.js";
import { startTestHub } from "./support/hub.js";

// `kxm mcp`: the BUILT CLI spawned as a stdio MCP server by the SDK's own Client, forwarding to a real hub (in this
// process, on a free port, with a temporary SQLite file) with the agent key from KXM_AGENT_KEY.

const ADMIN_TOKEN = "admin-token-for-cli-mcp-tests-0123456789";
const PROJECT = "demo";

let dir: string;
let hub: ServingHub;
let admin: HubClient;
let key: string;
let client: Client;
let stderr = "";
const protocolErrors: unknown[] = [];

function structured(result: CallToolResult): Record<string, unknown> {
  return result.structuredContent as Record<string, unknown>;
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function codeOf(result: CallToolResult): string | undefined {
  if (result.isError !== true) return undefined;
  const code = structured(result).code as string;
  expect((result.content[0] as { text: string }).text.startsWith(`${code}: `)).toBe(true);
  return code;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-cli-mcp-"));
  hub = await startTestHub(ADMIN_TOKEN, { env: { KXM_RATE_LIMIT: "1000000" } });
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  await admin.createProject({ body: { id: PROJECT } });
  await admin.createProject({ body: { id: "other" } });
  key = (await admin.createAgentKey({ params: { project: PROJECT }, body: { agentId: "agent-planner" } }))
    .key;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    cwd: dir,
    env: baseEnv({ KXM_AGENT_KEY: key, KXM_HUB_URL: hub.url }) as Record<string, string>,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  client = new Client({ name: "kxm-cli-mcp-test", version: "0.0.0" });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("kxm mcp (stdio)", () => {
  test("lists the four tools and logs only to stderr", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "kxm_context",
      "kxm_recall",
      "kxm_promote",
      "kxm_episode",
    ]);
    expect(stderr).toContain(`serving ${PROJECT} as agent-planner`);
  });

  test("every tool's happy path, forwarded to the hub for the key's project", async () => {
    const context = await call("kxm_context", { role: "planner", task: "release branch" });
    expect(context.isError).toBeFalsy();
    expect(structured(context)).toHaveProperty("packet");
    expect(structured(context)).toHaveProperty("audit");

    const recall = await call("kxm_recall", { query: "release", kinds: ["state"] });
    expect(recall.isError).toBeFalsy();
    expect(structured(recall)).toHaveProperty("items");

    const proposed = await call("kxm_promote", {
      key: "release.branch",
      summary: "Releases are cut from the main branch",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    });
    expect(proposed.isError).toBeFalsy();
    const { proposalId } = structured(proposed) as { proposalId: string };
    // Only a proposal: the operator's state read does not see it until promotion.
    await expect(
      admin.getState({ params: { project: PROJECT, key: "release.branch" }, query: {} }),
    ).rejects.toMatchObject({ code: "not_found" });
    await admin.promoteState({
      params: { project: PROJECT, proposalId },
      body: { evidenceRefs: ["review:1"] },
    });
    const state = await admin.getState({ params: { project: PROJECT, key: "release.branch" }, query: {} });
    expect(state.state.summary).toBe("Releases are cut from the main branch");

    const agent = createHubClient({ baseUrl: hub.url, token: key });
    const { run } = await agent.startRun({ params: { project: PROJECT }, body: { workflow: "ci" } });
    await agent.finishRun({ params: { project: PROJECT, runId: run.id }, body: { outcome: "succeeded" } });
    const episodes = await call("kxm_episode", { runId: run.id });
    expect(episodes.isError).toBeFalsy();
    expect((structured(episodes).items as unknown[]).length).toBe(1);
  });

  test("naming another project is a tool error, context_isolation_violation", async () => {
    expect(codeOf(await call("kxm_recall", { project: "other", query: "x" }))).toBe(
      "context_isolation_violation",
    );
    expect(codeOf(await call("kxm_episode", { project: "other" }))).toBe("context_isolation_violation");
  });

  test("invalid calls are tool errors with catalogue codes; the server keeps answering", async () => {
    const bad: [string, Record<string, unknown>, string][] = [
      ["kxm_context", { role: 5, task: "t" }, "invalid_request"],
      ["kxm_context", { role: "planner" }, "invalid_request"],
      ["kxm_context", { role: "planner", task: "x".repeat(50_000) }, "context_limits_exceeded"],
      ["kxm_context", { role: "planner", task: "t", budget: 3 }, "context_limits_exceeded"],
      ["kxm_recall", { query: "q", surprise: true }, "invalid_request"],
      ["kxm_recall", { query: "q", limit: "ten" }, "invalid_request"],
      ["kxm_promote", { key: "k" }, "invalid_request"],
      ["kxm_episode", { limit: 0 }, "context_limits_exceeded"],
      ["kxm_nope", {}, "invalid_request"],
    ];
    for (let round = 0; round < 20; round += 1) {
      for (const [name, args, code] of bad) expect(codeOf(await call(name, args)), name).toBe(code);
    }
    expect(protocolErrors).toEqual([]);
    expect((await call("kxm_recall", { query: "release" })).isError).toBeFalsy();
  }, 60_000);

  test("without KXM_AGENT_KEY it exits 2 with one line on stderr and nothing on stdout", async () => {
    const result = await kxm(["mcp"], { cwd: dir, env: { KXM_HUB_URL: hub.url } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/KXM_AGENT_KEY is unset/);
  });

  test("with an unknown key it exits 1 with invalid_auth's message", async () => {
    const result = await kxm(["mcp"], { cwd: dir, env: { KXM_HUB_URL: hub.url, KXM_AGENT_KEY: "kxm_nope" } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^mcp failed: /);
  });
});

describe("kxm mcp started before its hub", () => {
  test("starts, lists the tools and answers hub_unreachable; once the hub is up the same server works", async () => {
    const db = join(dir, "late-hub.db");
    const port = await freePort();
    const env = readHubEnv({
      KXM_AUTH_TOKEN: ADMIN_TOKEN,
      KXM_DB_PATH: db,
      KXM_HOST: "127.0.0.1",
      KXM_PORT: String(port),
      KXM_LOG_LEVEL: "silent",
    });
    // The key is made on the hub's database first; the hub then stops and is started again later.
    let late = await serveHub({ env, handleSignals: false });
    const lateAdmin = createHubClient({ baseUrl: late.url, token: ADMIN_TOKEN });
    await lateAdmin.createProject({ body: { id: "late" } });
    const lateKey = (
      await lateAdmin.createAgentKey({ params: { project: "late" }, body: { agentId: "agent-verifier" } })
    ).key;
    await late.close();

    let lateStderr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp"],
      cwd: dir,
      env: baseEnv({ KXM_AGENT_KEY: lateKey, KXM_HUB_URL: `http://127.0.0.1:${port}` }) as Record<
        string,
        string
      >,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      lateStderr += chunk.toString("utf8");
    });
    const early = new Client({ name: "kxm-cli-mcp-late", version: "0.0.0" });
    try {
      await early.connect(transport);
      expect((await early.listTools()).tools).toHaveLength(4);
      const down = (await early.callTool({
        name: "kxm_recall",
        arguments: { query: "release" },
      })) as CallToolResult;
      expect(down.isError).toBe(true);
      expect((down.structuredContent as { code: string }).code).toBe("hub_unreachable");
      expect(lateStderr).toMatch(/not reachable yet/);
      expect(lateStderr).not.toContain(lateKey);

      late = await serveHub({ env, handleSignals: false });
      const up = (await early.callTool({
        name: "kxm_recall",
        arguments: { query: "release" },
      })) as CallToolResult;
      expect(up.isError, JSON.stringify(up.content)).toBeFalsy();
      expect(up.structuredContent).toHaveProperty("items");
    } finally {
      await early.close();
      await late.close();
    }
  }, 60_000);
});
