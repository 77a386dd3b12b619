import { isKxmError, KxmError, parseOrThrow, ToolErrorSchema } from "@kxm/contract";
import type { HubClient } from "@kxm/contract/client";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { KXM_TOOLS } from "./tools.js";

/** The longest message a tool error carries. */
const MAX_MESSAGE_CHARS = 500;

export interface KxmMcpServerOptions {
  /** A hub client acting with the agent's key: every tool reaches the hub only through it. */
  readonly client: HubClient;
  /**
   * The credential's project (see `resolveAgent`), never taken from a tool argument; or a function that finds it,
   * called at each tool call until it succeeds (so a server started while the hub is down answers tool errors,
   * `hub_unreachable`, and works once the hub is up).
   */
  readonly project: string | (() => Promise<string>);
  /** The version the server reports to clients. */
  readonly version?: string;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= MAX_MESSAGE_CHARS ? line : `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}

/** A failure as an MCP tool error: `<code>: <message>` as text, and `{ code, message }` as structured content. */
export function toolError(error: unknown): CallToolResult {
  const known = isKxmError(error)
    ? error
    : new KxmError("internal_error", "an unexpected failure inside KXM's MCP server");
  const message = oneLine(known.message);
  return {
    isError: true,
    content: [{ type: "text", text: `${known.code}: ${message}` }],
    structuredContent: { code: known.code, message },
  };
}

/**
 * A tool's output schema: its answer or a tool error, as JSON Schema draft 7 (which MCP clients validate
 * structured content with). The root says `type: object`, as MCP requires of an output schema.
 */
function outputSchema(output: z.ZodType): Tool["outputSchema"] {
  const schema = z.toJSONSchema(z.union([output, ToolErrorSchema]), {
    io: "output",
    unrepresentable: "any",
    target: "draft-7",
  });
  return { type: "object", ...schema } as Tool["outputSchema"];
}

const TOOL_LIST: Tool[] = KXM_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Tool["inputSchema"],
  outputSchema: outputSchema(tool.output),
  annotations: {
    title: tool.title,
    readOnlyHint: tool.name !== "kxm_promote",
    destructiveHint: false,
    idempotentHint: tool.name !== "kxm_promote",
    openWorldHint: false,
  },
}));

/**
 * An MCP server offering `kxm_context`, `kxm_recall`, `kxm_promote` and `kxm_episode` for one project. Arguments
 * are validated here with the contract's schemas (not by the SDK), so every failure, bad input included, comes back
 * as a tool error carrying the catalogue code; the server never answers a tool call with a protocol error. Connect
 * it to any transport (`StdioServerTransport`, a stateless `StreamableHTTPServerTransport`, ...).
 */
export function createKxmMcpServer(options: KxmMcpServerOptions): Server {
  let project: string | undefined = typeof options.project === "string" ? options.project : undefined;
  const credentialProject = async (): Promise<string> => {
    if (project === undefined && typeof options.project === "function") project = await options.project();
    if (project === undefined) throw new KxmError("internal_error", "the server has no project");
    return project;
  };
  const server = new Server(
    { name: "kxm", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "KXM gives you your project's context and memory. Call kxm_context at the start of a task; kxm_recall to " +
        "check what is known; kxm_promote to propose a state value (an operator promotes it); kxm_episode to " +
        "learn from past runs. Your project comes from your agent key.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      const name = request.params.name;
      const tool = KXM_TOOLS.find((candidate) => candidate.name === name);
      if (tool === undefined) {
        throw new KxmError(
          "invalid_request",
          `no tool named ${oneLine(String(name)).slice(0, 80)}; the tools are ${KXM_TOOLS.map((t) => t.name).join(", ")}`,
        );
      }
      const raw = request.params.arguments ?? {};
      tool.refuse?.(raw);
      const args = parseOrThrow(tool.input, raw, "invalid_request", `${name} argument`);
      const own = await credentialProject();
      const named = (args as { project?: string }).project;
      if (named !== undefined && named !== own) {
        throw new KxmError(
          "context_isolation_violation",
          "an agent key may only reach its own project's records; omit project",
        );
      }
      const answer = await tool.run(options.client, own, args);
      return {
        content: [{ type: "text", text: JSON.stringify(answer) }],
        structuredContent: answer,
      } satisfies CallToolResult;
    } catch (error) {
      return toolError(error);
    }
  });
  return server;
}
