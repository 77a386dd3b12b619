import { KxmError } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, test } from "vitest";
import { createKxmMcpServer, KXM_TOOLS, resolveAgent, toolError } from "../src/index.js";

// The server against a stub `fetch`: what each tool sends to the hub, and how failures become tool errors.

interface Sent {
  method: string;
  url: string;
  body: unknown;
}

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

async function connect(answer: (sent: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const entry = {
      method: init?.method ?? "GET",
      url: String(input),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    };
    sent.push(entry);
    return answer(entry);
  };
  const server = createKxmMcpServer({
    client: createHubClient({ baseUrl: "http://hub.test", token: "kxm_k", fetch }),
    project: "demo",
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "t", version: "0" });
  await server.connect(b);
  await client.connect(a);
  open.push(client);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { sent, call };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("createKxmMcpServer", () => {
  test("kxm_context maps budget and kinds onto the route and puts the credential's project in the path", async () => {
    const { sent, call } = await connect(() => json(500, {}));
    await call("kxm_context", {
      role: "planner",
      task: "t",
      budget: 2048,
      kinds: ["state"],
      project: "demo",
    });
    expect(sent[0]).toEqual({
      method: "POST",
      url: "http://hub.test/v1/projects/demo/context",
      body: { role: "planner", task: "t", budgetTokens: 2048, includeKinds: ["state"] },
    });
  });

  test("kxm_episode sends its filters as the query", async () => {
    const { sent, call } = await connect(() => json(200, { items: [] }));
    const result = await call("kxm_episode", { runId: "run-1", limit: 5 });
    expect(result.structuredContent).toEqual({ items: [] });
    expect(sent[0]?.url).toBe("http://hub.test/v1/projects/demo/episodes?runId=run-1&limit=5");
  });

  test("kxm_promote sends a proposal, never a promotion", async () => {
    const { sent, call } = await connect(() => json(201, { proposalId: "p-1" }));
    const result = await call("kxm_promote", {
      key: "k",
      summary: "s",
      authority: "evidence",
      confidence: "probable",
      evidenceRefs: ["pr:1"],
    });
    expect(result.structuredContent).toEqual({ proposalId: "p-1", status: "proposed" });
    expect(sent.map((entry) => entry.url)).toEqual(["http://hub.test/v1/projects/demo/state/proposals"]);
  });

  test("a hub problem becomes a tool error with its code", async () => {
    const { call } = await connect(() =>
      json(429, { type: "x", title: "t", status: 429, code: "rate_limited", detail: "slow down" }),
    );
    const result = await call("kxm_recall", { query: "q" });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "rate_limited: slow down" }],
      structuredContent: { code: "rate_limited", message: "slow down" },
    });
  });

  test("an unreachable hub is hub_unreachable; another project is refused before any request", async () => {
    const { sent, call } = await connect(() => {
      throw new TypeError("fetch failed");
    });
    expect((await call("kxm_recall", { query: "q" })).structuredContent).toMatchObject({
      code: "hub_unreachable",
    });
    const before = sent.length;
    const refused = await call("kxm_recall", { query: "q", project: "other" });
    expect(refused.structuredContent).toMatchObject({ code: "context_isolation_violation" });
    expect(sent.length).toBe(before);
  });

  test("offers the four tools, in order", () => {
    expect(KXM_TOOLS.map((tool) => tool.name)).toEqual([
      "kxm_context",
      "kxm_recall",
      "kxm_promote",
      "kxm_episode",
    ]);
  });
});

describe("toolError", () => {
  test("keeps a KxmError's code on one line; anything else is internal_error without its message", () => {
    expect(toolError(new KxmError("not_found", "no\nsuch"))).toMatchObject({
      content: [{ text: "not_found: no such" }],
    });
    expect(toolError(new Error("secret detail"))).toMatchObject({
      structuredContent: { code: "internal_error" },
    });
    expect(JSON.stringify(toolError(new Error("secret detail")))).not.toContain("secret");
  });
});

describe("resolveAgent", () => {
  const whoami = (status: number, body: unknown) => async () => json(status, body);
  test("answers the agent's project; refuses the admin token and passes on the hub's code", async () => {
    await expect(
      resolveAgent({
        baseUrl: "http://h",
        token: "t",
        fetch: whoami(200, { kind: "agent", project: "p", agentId: "a" }),
      }),
    ).resolves.toEqual({ project: "p", agentId: "a" });
    await expect(
      resolveAgent({ baseUrl: "http://h", token: "t", fetch: whoami(200, { kind: "admin" }) }),
    ).rejects.toMatchObject({ code: "invalid_auth" });
    await expect(
      resolveAgent({
        baseUrl: "http://h",
        token: "t",
        fetch: whoami(401, { code: "invalid_auth", detail: "no" }),
      }),
    ).rejects.toMatchObject({ code: "invalid_auth", message: "no" });
    await expect(
      resolveAgent({
        baseUrl: "http://h",
        token: "t",
        fetch: async () => {
          throw new TypeError("fetch failed");
        },
      }),
    ).rejects.toMatchObject({ code: "hub_unreachable" });
  });
});

describe("a project found at the first call", () => {
  test("a failing lookup is a tool error each time until it answers; then it is asked no more", async () => {
    let asked = 0;
    const project = async () => {
      asked += 1;
      if (asked < 3) throw new KxmError("hub_unreachable", "cannot reach the hub");
      return "demo";
    };
    const fetch: typeof globalThis.fetch = async () =>
      new Response(JSON.stringify({ items: [], unresolvedGaps: [] }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    const server = createKxmMcpServer({
      client: createHubClient({ baseUrl: "http://hub.test", token: "kxm_k", fetch }),
      project,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "t", version: "0" });
    await server.connect(b);
    await client.connect(a);
    open.push(client);
    const recall = async () =>
      (await client.callTool({ name: "kxm_recall", arguments: { query: "q" } })) as CallToolResult;
    // Bad input is refused without asking for the project.
    const bad = (await client.callTool({ name: "kxm_recall", arguments: { query: 5 } })) as CallToolResult;
    expect(bad.structuredContent).toMatchObject({ code: "invalid_request" });
    expect(asked).toBe(0);
    expect((await recall()).structuredContent).toMatchObject({ code: "hub_unreachable" });
    expect((await recall()).structuredContent).toMatchObject({ code: "hub_unreachable" });
    expect((await recall()).isError).toBeFalsy();
    expect((await recall()).isError).toBeFalsy();
    expect(asked).toBe(3);
  });
});
