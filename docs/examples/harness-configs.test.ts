// The MCP configurations of docs/examples/mcp, one per harness, used the way each harness uses them: parsed (JSON
// or TOML), their variables expanded by that harness's rules from an environment holding only KXM_AGENT_KEY and
// KXM_HUB_URL, and the stdio server they name started by name (`kxm` on PATH: a shim that starts the built CLI,
// standing in for an installed one) against a real hub on a free loopback port, with the SDK's own Client.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHubClient } from "@kxm/contract/client";
import { readHubEnv, type ServingHub, serveHub } from "@kxm/hub";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const cli = fileURLToPath(new URL("../../apps/cli/bin/run.js", import.meta.url));
const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
const ADMIN_TOKEN = "admin-token-for-harness-configs-0123456789";

type Env = Readonly<Record<string, string>>;

/** Claude Code: `${VAR}` and `${VAR:-default}`; a variable that is unset and has no default is an error. */
function claudeExpand(text: string, env: Env): string {
  return text.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const value = env[name] ?? fallback;
    if (value === undefined) throw new Error(`Missing environment variable: ${name}`);
    return value;
  });
}

/** Cursor: `${env:VAR}`. */
const cursorExpand = (text: string, env: Env) =>
  text.replace(/\$\{env:([A-Z_][A-Z0-9_]*)\}/g, (_, name: string) => env[name] ?? "");

/** Gemini CLI: `$VAR` and `${VAR}`. */
const geminiExpand = (text: string, env: Env) =>
  text.replace(
    /\$(?:\{([A-Z_][A-Z0-9_]*)\}|([A-Z_][A-Z0-9_]*))/g,
    (_, a?: string, b?: string) => env[a ?? b ?? ""] ?? "",
  );

interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Each stdio configuration as the server its harness would start, given the harness's environment. */
const STDIO: Record<string, (env: Env) => StdioServer> = {
  "Claude Code (.mcp.json)": (env) => JSON.parse(claudeExpand(read("mcp/.mcp.json"), env)).mcpServers.kxm,
  "the Claude Code plugin (plugins/kxm/.mcp.json)": (env) =>
    JSON.parse(claudeExpand(read("../../plugins/kxm/.mcp.json"), env)).mcpServers.kxm,
  "Cursor (mcp.json)": (env) => JSON.parse(cursorExpand(read("mcp/cursor/mcp.json"), env)).mcpServers.kxm,
  "Gemini CLI (settings.json)": (env) =>
    JSON.parse(geminiExpand(read("mcp/gemini/settings.json"), env)).mcpServers.kxm,
  "Codex (config.toml)": (env) => {
    const server = (parseToml(read("mcp/codex/config.toml")) as { mcp_servers: Record<string, unknown> })
      .mcp_servers.kxm as { command: string; args: string[]; env_vars: string[] };
    const forwarded = Object.fromEntries(
      server.env_vars.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
    );
    return { command: server.command, args: server.args, env: forwarded };
  },
};

const FILES = [
  "mcp/.mcp.json",
  "mcp/http.mcp.json",
  "mcp/cursor/mcp.json",
  "mcp/gemini/settings.json",
  "mcp/codex/config.toml",
  "../../plugins/kxm/.mcp.json",
];

let work: string;
let bin: string;
let hub: ServingHub;
let harnessEnv: Env;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "kxm-harness-"));
  bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "kxm"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(join(bin, "kxm"), 0o755);
  hub = await serveHub({
    env: readHubEnv({
      KXM_AUTH_TOKEN: ADMIN_TOKEN,
      KXM_DB_PATH: join(work, "kxm.db"),
      KXM_HOST: "127.0.0.1",
      KXM_PORT: "0",
      KXM_LOG_LEVEL: "silent",
    }),
    handleSignals: false,
  });
  const admin = createHubClient({ baseUrl: hub.url, token: ADMIN_TOKEN });
  await admin.createProject({ body: { id: "demo" } });
  const { key } = await admin.createAgentKey({
    params: { project: "demo" },
    body: { agentId: "agent-planner" },
  });
  harnessEnv = { KXM_AGENT_KEY: key, KXM_HUB_URL: hub.url };
}, 60_000);

afterAll(async () => {
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

async function recallThrough(client: Client): Promise<CallToolResult> {
  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("kxm_recall");
  return (await client.callTool({ name: "kxm_recall", arguments: { query: "release" } })) as CallToolResult;
}

describe("the harness configurations", () => {
  test.each(FILES)("%s fixes no host or port: the hub's URL comes from KXM_HUB_URL", (file) => {
    const text = read(file);
    expect(text).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\b/);
    expect(text).toContain("KXM_HUB_URL");
    expect(text).toContain("KXM_AGENT_KEY");
  });

  test.each(Object.keys(STDIO))(
    "%s starts `kxm mcp` by name, and its tools reach the hub",
    async (name) => {
      const server = STDIO[name]!(harnessEnv);
      expect([server.command, ...server.args]).toEqual(["kxm", "mcp"]);
      expect(server.env).toEqual(harnessEnv);
      const client = new Client({ name: "kxm-harness-config", version: "0.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: server.command,
          args: server.args,
          env: { ...getDefaultEnvironment(), PATH: `${bin}:${process.env.PATH ?? ""}`, ...server.env },
          cwd: work,
          stderr: "ignore",
        }),
      );
      try {
        const result = await recallThrough(client);
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect(result.structuredContent).toHaveProperty("items");
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  test("Claude Code's HTTP configuration reaches the hub's /mcp with the agent key", async () => {
    const server = JSON.parse(claudeExpand(read("mcp/http.mcp.json"), harnessEnv)).mcpServers.kxm as {
      type: string;
      url: string;
      headers: Record<string, string>;
    };
    expect(server.type).toBe("http");
    const client = new Client({ name: "kxm-harness-http", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    try {
      expect((await recallThrough(client)).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  test("without KXM_HUB_URL, Claude Code refuses the configuration instead of guessing a port", () => {
    expect(() => claudeExpand(read("mcp/.mcp.json"), { KXM_AGENT_KEY: "k" })).toThrow(/KXM_HUB_URL/);
  });
});
