import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIMITS } from "@kxm/contract";
import { createHubClient, type HubClient } from "@kxm/contract/client";
import { createKxmMcpServer } from "@kxm/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ServingHub } from "../src/index.js";
import { serveLoopbackHub } from "./helpers.js";

// The hub's MCP endpoint (`POST /mcp`, Streamable HTTP, stateless), driven by the SDK's own Client against a real
// hub on a free port with a temporary SQLite file. The same tools over an in-memory transport carry most of the
// generated invalid calls (for speed); a few hundred go over the real HTTP endpoint.

const ADMIN_TOKEN = "admin-token-for-mcp-tests-0123456789";
const PROJECT = "alpha";
const OTHER = "beta";

let dir: string;
let hub: ServingHub;
let admin: HubClient;
let key: string;
let otherKey: string;
let http: Client;

async function httpClient(token: string | undefined): Promise<Client> {
  const client = new Client({ name: "kxm-mcp-test", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorCode(result: CallToolResult): string | undefined {
  if (result.isError !== true) return undefined;
  const structured = result.structuredContent as { code?: string; message?: string } | undefined;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  expect(text.startsWith(`${structured?.code}: `), text).toBe(true);
  expect(text).not.toMatch(/\n/);
  return structured?.code;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-hub-mcp-"));
  hub = await serveLoopbackHub(dir, ADMIN_TOKEN, { KXM_RATE_LIMIT: "1000000" });
  admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  await admin.createProject({ body: { id: PROJECT } });
  await admin.createProject({ body: { id: OTHER } });
  key = (await admin.createAgentKey({ params: { project: PROJECT }, body: { agentId: "agent-planner" } }))
    .key;
  otherKey = (await admin.createAgentKey({ params: { project: OTHER }, body: { agentId: "agent-planner" } }))
    .key;
  http = await httpClient(key);
}, 60_000);

afterAll(async () => {
  await http?.close();
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the /mcp endpoint", () => {
  test("lists the four tools, each with a description and the optional project argument", async () => {
    const { tools } = await http.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "kxm_context",
      "kxm_recall",
      "kxm_promote",
      "kxm_episode",
    ]);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(80);
      expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("project");
      expect(tool.inputSchema.required ?? []).not.toContain("project");
    }
    const promote = tools.find((tool) => tool.name === "kxm_promote");
    expect(promote?.description).toMatch(/only PROPOSES/);
  });

  test("kxm_context answers the packet and its audit", async () => {
    const result = await callTool(http, "kxm_context", {
      role: "planner",
      task: "Which branch do we release from?",
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as {
      packet: { budgetTokens: number };
      audit: { selectedIds: string[]; packetId: string };
    };
    expect(answer.packet.budgetTokens).toBeGreaterThan(0);
    expect(Array.isArray(answer.audit.selectedIds)).toBe(true);
    // The agent gets the packet's id, which an operator reads the stored audit by (decision 0016).
    expect(answer.audit.packetId).toMatch(/^pkt_[0-9a-f]{32}$/);
    expect(Object.keys(answer.audit).at(-1)).toBe("packetId");
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(answer);
    const budgeted = await callTool(http, "kxm_context", {
      project: PROJECT,
      role: "reviewer",
      task: "review",
      budget: 1024,
      kinds: ["state", "episode"],
    });
    expect((budgeted.structuredContent as { packet: { budgetTokens: number } }).packet.budgetTokens).toBe(
      1024,
    );
  });

  test("kxm_recall answers metadata only", async () => {
    const result = await callTool(http, "kxm_recall", { query: "release", limit: 5 });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { items: Record<string, unknown>[] };
    expect(Array.isArray(answer.items)).toBe(true);
    for (const item of answer.items) expect(item).not.toHaveProperty("summary");
  });

  test("kxm_promote only proposes: the value is current only after the operator promotes it", async () => {
    const proposal = {
      key: "release.branch",
      summary: "Releases are cut from the main branch",
      authority: "evidence",
      confidence: "verified",
      evidenceRefs: ["pr:12"],
    };
    const result = await callTool(http, "kxm_promote", proposal);
    expect(result.isError).toBeFalsy();
    const { proposalId, status } = result.structuredContent as { proposalId: string; status: string };
    expect(status).toBe("proposed");
    await expect(
      admin.getState({ params: { project: PROJECT, key: "release.branch" }, query: {} }),
    ).rejects.toMatchObject({ code: "not_found" });
    await admin.promoteState({
      params: { project: PROJECT, proposalId },
      body: { evidenceRefs: ["review:pr-12"] },
    });
    const state = await admin.getState({ params: { project: PROJECT, key: "release.branch" }, query: {} });
    expect(state.state.summary).toBe(proposal.summary);
    expect(state.state.provenance.sourceType).toBe("peer");

    // An agent's proposal is capped at evidence.
    const policy = await callTool(http, "kxm_promote", {
      ...proposal,
      key: "policy.key",
      authority: "policy",
    });
    expect(errorCode(policy)).toBe("context_authority_violation");
  });

  test("kxm_episode lists the project's episodes, or one run's", async () => {
    const agent = createHubClient({ baseUrl: hub.url, token: key });
    const runIds: string[] = [];
    for (const outcome of ["succeeded", "failed"] as const) {
      const { run } = await agent.startRun({ params: { project: PROJECT }, body: { workflow: "ci" } });
      await agent.finishRun({
        params: { project: PROJECT, runId: run.id },
        body: {
          outcome,
          ...(outcome === "failed" ? { failingStep: "test", lessons: ["Run the tests"] } : {}),
        },
      });
      runIds.push(run.id);
    }
    const all = await callTool(http, "kxm_episode", {});
    expect(all.isError).toBeFalsy();
    expect((all.structuredContent as { items: unknown[] }).items.length).toBeGreaterThanOrEqual(2);
    const one = await callTool(http, "kxm_episode", { runId: runIds[1], limit: 10 });
    const items = (one.structuredContent as { items: { summary: string }[] }).items;
    expect(items).toHaveLength(1);
  });

  test("naming another project is refused with context_isolation_violation, by every tool", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["kxm_context", { project: OTHER, role: "planner", task: "t" }],
      ["kxm_recall", { project: OTHER, query: "release" }],
      [
        "kxm_promote",
        {
          project: OTHER,
          key: "k",
          summary: "s",
          authority: "evidence",
          confidence: "probable",
          evidenceRefs: ["pr:1"],
        },
      ],
      ["kxm_episode", { project: OTHER }],
    ];
    for (const [name, args] of calls)
      expect(errorCode(await callTool(http, name, args)), name).toBe("context_isolation_violation");
    // The other project's own key sees its own (empty) project, not alpha's state.
    const other = await httpClient(otherKey);
    const recall = await callTool(other, "kxm_recall", { query: "release branch main" });
    expect((recall.structuredContent as { items: unknown[] }).items).toEqual([]);
    expect(errorCode(await callTool(other, "kxm_recall", { project: PROJECT, query: "x" }))).toBe(
      "context_isolation_violation",
    );
    await other.close();
  });

  test("answers 401 problem+json without a valid agent key; the admin token is not an agent key", async () => {
    for (const authorization of [undefined, "Bearer nope", `Bearer ${ADMIN_TOKEN}`, "Basic abc"]) {
      const response = await fetch(`${hub.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_auth");
    }
    await expect(httpClient(undefined)).rejects.toThrow();
  });

  test("GET and DELETE /mcp answer 405 (stateless); /mcp/whoami names the credential's project", async () => {
    expect((await fetch(`${hub.url}/mcp`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(405);
    expect((await fetch(`${hub.url}/mcp`, { method: "DELETE" })).status).toBe(405);
    const whoami = await fetch(`${hub.url}/mcp/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(await whoami.json()).toEqual({ kind: "agent", project: PROJECT, agentId: "agent-planner" });
    const adminWho = await fetch(`${hub.url}/mcp/whoami`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await adminWho.json()).toEqual({ kind: "admin" });
    expect((await fetch(`${hub.url}/mcp/whoami`)).status).toBe(401);
  });
});

// Generated invalid calls: one mutation of a valid call (a wrong type, a string over its limit, an unknown field,
// another project). Each must come back as a tool error with an expected code; none may be a protocol error.

type Field = { name: string; type: "string" | "int" | "array" | "enum"; max?: number };

const VALID: Record<string, Record<string, unknown>> = {
  kxm_context: { role: "planner", task: "release" },
  kxm_recall: { query: "release" },
  kxm_promote: {
    key: "fuzz.key",
    summary: "A value",
    authority: "evidence",
    confidence: "probable",
    evidenceRefs: ["pr:1"],
  },
  kxm_episode: {},
};

const FIELDS: Record<string, Field[]> = {
  kxm_context: [
    { name: "project", type: "string" },
    { name: "role", type: "string", max: LIMITS.roleChars },
    { name: "task", type: "string", max: LIMITS.taskChars },
    { name: "budget", type: "int" },
    { name: "kinds", type: "array" },
    { name: "runId", type: "string", max: LIMITS.idChars },
    { name: "stage", type: "string", max: LIMITS.roleChars },
  ],
  kxm_recall: [
    { name: "project", type: "string" },
    { name: "query", type: "string", max: LIMITS.recallQueryChars },
    { name: "kinds", type: "array" },
    { name: "limit", type: "int" },
  ],
  kxm_promote: [
    { name: "project", type: "string" },
    { name: "key", type: "string", max: LIMITS.stateKeyChars },
    { name: "summary", type: "string" },
    { name: "authority", type: "enum" },
    { name: "confidence", type: "enum" },
    { name: "evidenceRefs", type: "array" },
    { name: "supersedes", type: "array" },
  ],
  kxm_episode: [
    { name: "project", type: "string" },
    { name: "runId", type: "string", max: LIMITS.idChars },
    { name: "limit", type: "int" },
    { name: "cursor", type: "string", max: 256 },
  ],
};

const TOOL_NAMES = Object.keys(VALID);
const scalar = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
);

// fast-check favours keys such as __proto__; over HTTP the hub refuses such a body (prototype poisoning) with a
// 400 before any tool runs, as mcp-trust.test.ts checks, so the objects generated here leave those keys out.
const POISON_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const object = () => fc.object({ key: fc.string().filter((key) => !POISON_KEYS.has(key)) });

/** A value of any type but `type`. */
function wrongType(type: Field["type"]): fc.Arbitrary<unknown> {
  const others = {
    string: fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(scalar, { maxLength: 3 }),
      object(),
    ),
    enum: fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.string().filter((s) => !/^[a-z]+$/.test(s)),
    ),
    int: fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.double().filter((n) => !Number.isInteger(n)),
      fc.array(fc.integer(), { maxLength: 3 }),
    ),
    array: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), object()),
  } as const;
  return others[type];
}

const invalidCall: fc.Arbitrary<{ name: string; args: Record<string, unknown>; expected: string[] }> = fc
  .constantFrom(...TOOL_NAMES)
  .chain((name) => {
    const fields = FIELDS[name] ?? [];
    const base = VALID[name] ?? {};
    const known = new Set(fields.map((field) => field.name));
    const input = ["invalid_request", "context_limits_exceeded"];
    const typed = fc.constantFrom(...fields).chain((field) =>
      wrongType(field.type).map((value) => ({
        name,
        args: { ...base, [field.name]: value },
        expected: input,
      })),
    );
    const limited = fields.filter((field) => field.max !== undefined);
    const huge = fc.constantFrom(...limited).chain((field) =>
      fc
        .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom("x", "é", "字", "a b"))
        .map(([extra, unit]) => ({
          name,
          args: { ...base, [field.name]: unit.repeat(Math.ceil(((field.max ?? 0) + extra) / unit.length)) },
          expected: input,
        })),
    );
    const unknown = fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 40 }).filter((k) => !known.has(k) && k !== "__proto__"),
        scalar,
      )
      .map(([field, value]) => ({ name, args: { ...base, [field]: value }, expected: input }));
    const otherProject = fc
      .stringMatching(/^[a-z0-9][a-z0-9_-]{0,30}$/)
      .filter((project) => project !== PROJECT)
      .map((project) => ({ name, args: { ...base, project }, expected: ["context_isolation_violation"] }));
    return fc.oneof(typed, huge, unknown, otherProject);
  });

async function expectToolError(
  client: Client,
  call: { name: string; args: Record<string, unknown>; expected: string[] },
) {
  const result = await callTool(client, call.name, call.args);
  const code = errorCode(result);
  expect(call.expected, JSON.stringify(call.args).slice(0, 300)).toContain(code);
}

describe("generated invalid tool calls", () => {
  test("400 over the real HTTP endpoint are tool errors, never protocol errors", async () => {
    const protocolErrors: unknown[] = [];
    http.onerror = (error) => protocolErrors.push(error);
    await fc.assert(
      fc.asyncProperty(invalidCall, (call) => expectToolError(http, call)),
      { numRuns: 400 },
    );
    expect(protocolErrors).toEqual([]);
    const after = await callTool(http, "kxm_recall", { query: "release" });
    expect(after.isError, JSON.stringify(after.content).slice(0, 500)).toBeFalsy();
  }, 180_000);

  test("600 over an in-memory transport to the same tools are tool errors, never protocol errors", async () => {
    const server = createKxmMcpServer({
      client: createHubClient({ baseUrl: hub.url, token: key }),
      project: PROJECT,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "kxm-mcp-fuzz", version: "0.0.0" });
    const protocolErrors: unknown[] = [];
    client.onerror = (error) => protocolErrors.push(error);
    await server.connect(serverSide);
    await client.connect(clientSide);
    await fc.assert(
      fc.asyncProperty(invalidCall, (call) => expectToolError(client, call)),
      { numRuns: 600 },
    );
    expect(protocolErrors).toEqual([]);
    const after = await callTool(client, "kxm_context", { role: "planner", task: "release" });
    expect(after.isError, JSON.stringify(after.content).slice(0, 500)).toBeFalsy();
    await client.close();
    await server.close();
  }, 180_000);
});
