import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_AUTHORITIES, LIMITS, NAMED_ROLES, TOOL_OUTPUT_SCHEMAS } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readHubEnv, type ServingHub } from "../src/index.js";
import { serveLoopbackHub } from "./helpers.js";

// What /mcp promises a harness beyond the tools themselves, against a real hub on a free loopback port with a
// temporary SQLite file, through the SDK's own Client: each tool's outputSchema (the Client validates every
// structuredContent against it, so a mismatch fails the call), the schemas advertised to agents, the Origin check
// (DNS-rebinding protection) and the WWW-Authenticate header of a 401.

const ADMIN_TOKEN = "admin-token-for-mcp-trust-0123456789";
const PROJECT = "alpha";
const LISTED_ORIGIN = "https://agents.example.com";

let dir: string;
let hub: ServingHub;
let key: string;
let client: Client;
let tools: Tool[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-hub-mcp-trust-"));
  hub = await serveLoopbackHub(dir, ADMIN_TOKEN, {
    KXM_MCP_ALLOWED_ORIGINS: `${LISTED_ORIGIN}, http://intranet.example:8080`,
  });
  const admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  await admin.createProject({ body: { id: PROJECT } });
  key = (await admin.createAgentKey({ params: { project: PROJECT }, body: { agentId: "agent-planner" } }))
    .key;
  const agent = createHubClient({ baseUrl: hub.url, token: key });
  await agent.proposeState({
    params: { project: PROJECT },
    body: {
      key: "release.branch",
      summary: "Releases are cut from main",
      authority: "evidence",
      confidence: "probable",
      evidenceRefs: ["pr:1"],
    },
  });
  const { run } = await agent.startRun({ params: { project: PROJECT }, body: { workflow: "ci" } });
  await agent.finishRun({
    params: { project: PROJECT, runId: run.id },
    body: { outcome: "failed", failingStep: "test", lessons: ["Run the tests first"] },
  });
  client = new Client({ name: "kxm-mcp-trust", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  tools = (await client.listTools()).tools;
}, 60_000);

afterAll(async () => {
  await client?.close();
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

function toolNamed(name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function mcpPost(headers: Record<string, string>): Promise<Response> {
  return fetch(`${hub.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
}

describe("tool schemas", () => {
  test("every tool has an object outputSchema; the SDK Client validates each answer and each tool error", async () => {
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe("object");
    const answers = [
      await call("kxm_context", { role: "planner", task: "Which branch do we release from?" }),
      await call("kxm_recall", { query: "release branch" }),
      await call("kxm_promote", {
        key: "release.tag",
        summary: "Tags are v-prefixed",
        authority: "hypothesis",
        confidence: "uncertain",
        evidenceRefs: ["pr:2"],
      }),
      await call("kxm_episode", {}),
    ];
    for (const answer of answers) expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    // The answers are the contract's shapes, item for item.
    expect(TOOL_OUTPUT_SCHEMAS.kxm_context.parse(answers[0]?.structuredContent)).toBeTruthy();
    expect(TOOL_OUTPUT_SCHEMAS.kxm_recall.parse(answers[1]?.structuredContent).items.length).toBeGreaterThan(
      0,
    );
    expect(answers[2]?.structuredContent).toMatchObject({ status: "proposed" });
    expect(TOOL_OUTPUT_SCHEMAS.kxm_episode.parse(answers[3]?.structuredContent).items).toHaveLength(1);
    // A tool error's structured content ({ code, message }) is valid against the same schema.
    const failed = await call("kxm_recall", { query: "q", limit: "ten" });
    expect(failed).toMatchObject({ isError: true, structuredContent: { code: "invalid_request" } });
  });

  test("kxm_context names the roles of the contract's role table, and no role that does not exist", () => {
    const context = toolNamed("kxm_context");
    const properties = context.inputSchema.properties as Record<string, { description?: string }>;
    const role = properties.role?.description ?? "";
    for (const text of [context.description ?? "", role]) {
      for (const name of NAMED_ROLES) expect(text).toContain(name);
      expect(text).not.toMatch(/reviewer|tester/);
    }
  });

  test("kxm_recall says skills are never recalled, and recall of skill finds nothing", async () => {
    expect(toolNamed("kxm_recall").description).toMatch(/Skills are never recalled/);
    const answer = await call("kxm_recall", { query: "", kinds: ["skill"] });
    expect((answer.structuredContent as { items: unknown[] }).items).toEqual([]);
  });

  test("kxm_promote advertises only the authorities an agent may claim, with the contract's limits", async () => {
    const properties = toolNamed("kxm_promote").inputSchema.properties as Record<
      string,
      Record<string, unknown>
    >;
    expect(properties.authority?.enum).toEqual(["evidence", "hypothesis"]);
    expect(AGENT_AUTHORITIES).toEqual(["evidence", "hypothesis"]);
    expect(properties.evidenceRefs).toMatchObject({
      minItems: LIMITS.minStateEvidenceRefs,
      maxItems: LIMITS.maxStateEvidenceRefs,
      items: { maxLength: LIMITS.refChars },
    });
    expect(properties.summary?.maxLength).toBe(LIMITS.summaryChars);
    expect(properties.key?.maxLength).toBe(LIMITS.stateKeyChars);
    // A claim above the ceiling is still named for what it is; no evidence is over a limit.
    const base = { key: "k", summary: "s", confidence: "probable", evidenceRefs: ["pr:1"] };
    expect(
      (await call("kxm_promote", { ...base, authority: "instruction" })).structuredContent,
    ).toMatchObject({
      code: "context_authority_violation",
    });
    expect(
      (await call("kxm_promote", { ...base, authority: "evidence", evidenceRefs: [] })).structuredContent,
    ).toMatchObject({ code: "context_limits_exceeded" });
  });
});

describe("the Origin check (DNS-rebinding protection)", () => {
  test("a foreign Origin with a valid key is 403 problem+json origin_not_allowed, on every /mcp path", async () => {
    for (const origin of ["https://evil.example", "http://127.0.0.1.evil.example", "null", "not a url"]) {
      const response = await mcpPost({ authorization: `Bearer ${key}`, origin });
      expect(response.status, origin).toBe(403);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { code: string; detail: string };
      expect(problem.code).toBe("origin_not_allowed");
      expect(problem.detail).not.toContain("evil");
    }
    const whoami = await fetch(`${hub.url}/mcp/whoami`, {
      headers: { authorization: `Bearer ${key}`, origin: "https://evil.example" },
    });
    expect(whoami.status).toBe(403);
    // Refused before the credential is looked at: no key, same answer.
    expect((await mcpPost({ origin: "https://evil.example" })).status).toBe(403);
  });

  test("no Origin, a loopback Origin and a listed one are served", async () => {
    for (const origin of [
      undefined,
      hub.url,
      "http://localhost:5173",
      "http://[::1]:3000",
      LISTED_ORIGIN,
      "http://intranet.example:8080",
    ]) {
      const response = await mcpPost({
        authorization: `Bearer ${key}`,
        ...(origin === undefined ? {} : { origin }),
      });
      expect(response.status, String(origin)).toBe(200);
    }
    // A listed host on another port or scheme is another origin.
    expect(
      (await mcpPost({ authorization: `Bearer ${key}`, origin: "http://agents.example.com" })).status,
    ).toBe(403);
  });

  test("KXM_MCP_ALLOWED_ORIGINS must hold origins; the message names the variable, not the value", () => {
    expect(
      readHubEnv({ KXM_MCP_ALLOWED_ORIGINS: "https://A.example.com/, http://b:81" }).mcpAllowedOrigins,
    ).toEqual(["https://a.example.com", "http://b:81"]);
    for (const bad of ["https://a.example.com/path", "ftp://a.example.com", "secret-word"]) {
      expect(() => readHubEnv({ KXM_MCP_ALLOWED_ORIGINS: bad })).toThrow(
        /^environment variable KXM_MCP_ALLOWED_ORIGINS must be comma-separated origins/,
      );
    }
  });
});

describe("a poisoned body", () => {
  test("a tool call whose arguments hold a __proto__ key is refused 400 problem+json before any tool runs", async () => {
    const response = await fetch(`${hub.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${key}`,
      },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kxm_recall","arguments":{"query":{"__proto__":{"x":1}}}}}`,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { code: string }).code).toBe("invalid_request");
  });
});

describe("a 401 from /mcp", () => {
  test("carries WWW-Authenticate: Bearer, with error=invalid_token when a credential was refused", async () => {
    const none = await mcpPost({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="kxm"');
    const unknown = await mcpPost({ authorization: "Bearer kxm_unknown" });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toBe('Bearer realm="kxm", error="invalid_token"');
    const whoami = await fetch(`${hub.url}/mcp/whoami`);
    expect(whoami.headers.get("www-authenticate")).toBe('Bearer realm="kxm"');
  });
});
