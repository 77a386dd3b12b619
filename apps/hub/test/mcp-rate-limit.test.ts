import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHubClient } from "@kxm/contract/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, expect, test } from "vitest";
import { readHubEnv, serveHub } from "../src/index.js";

// A tool call over /mcp is one request an agent makes; the tool's own in-process call to the route must not be
// counted again. The client's own requests are counted on the wire: exactly the limit's worth of them get through
// before the first 429. Counted twice, the refusals would start after about half as many.

const ADMIN = "admin-token-for-rate-limit-tests-0123";
const dir = await mkdtemp(join(tmpdir(), "kxm-hub-mcp-limit-"));
const hub = await serveHub({
  env: readHubEnv({
    KXM_AUTH_TOKEN: ADMIN,
    KXM_DB_PATH: join(dir, "kxm.db"),
    KXM_PORT: "0",
    KXM_RATE_LIMIT: "10",
  }),
  logger: false,
  handleSignals: false,
});
afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

test("a tool call over /mcp counts once against the caller's rate limit", async () => {
  const admin = createHubClient({ baseUrl: hub.url, token: ADMIN });
  await admin.createProject({ body: { id: "alpha" } });
  const { key } = await admin.createAgentKey({ params: { project: "alpha" }, body: { agentId: "agent-1" } });
  let accepted = 0;
  let refused = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 429) refused += 1;
    else accepted += 1;
    return response;
  };
  const client = new Client({ name: "kxm-rate-limit-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: counting,
    }),
  );
  let succeeded = 0;
  for (let i = 0; i < 20 && refused === 0; i += 1) {
    const result = (await client
      .callTool({ name: "kxm_recall", arguments: { query: `q${i}` } })
      .catch(() => undefined)) as CallToolResult | undefined;
    if (result !== undefined) {
      expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
      succeeded += 1;
    }
  }
  expect(refused).toBe(1);
  expect(accepted).toBe(10);
  expect(succeeded).toBeGreaterThan(3);
  await client.close();
});

test("the in-process mark cannot be claimed from outside", async () => {
  const response = await fetch(`${hub.url}/v1/health`, { headers: { "x-kxm-in-process": "guess" } });
  expect(response.status === 200 || response.status === 429).toBe(true);
  let limited = false;
  for (let i = 0; i < 15 && !limited; i += 1) {
    limited =
      (await fetch(`${hub.url}/v1/health`, { headers: { "x-kxm-in-process": "guess" } })).status === 429;
  }
  expect(limited).toBe(true);
});
