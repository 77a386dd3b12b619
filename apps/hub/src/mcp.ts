import { randomBytes, timingSafeEqual } from "node:crypto";
import { KxmError, MCP_PATHS, type Whoami } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { createKxmMcpServer } from "@kxm/mcp";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyInstance, FastifyReply, FastifyRequest, InjectOptions } from "fastify";
import { presentedCredential } from "./auth.js";
import { describeError } from "./logging.js";
import { isAllowedOrigin } from "./origin.js";
import type { HubServices } from "./services.js";

// The hub's MCP endpoint: KXM's agent tools over Streamable HTTP, stateless (a new server and transport per
// request), authenticated with an agent key as a Bearer token. The tools call the hub's own routes in-process
// (`app.inject`) with the caller's key, so auth, isolation, validation and logging are exactly the HTTP API's.

interface McpAgent {
  readonly credential: string;
  readonly project: string;
  readonly agentId: string;
}

const AGENTS = new WeakMap<FastifyRequest, McpAgent>();

/** A base URL the in-process client builds its URLs on; nothing ever connects to it. */
const IN_PROCESS_BASE = "http://kxm-hub.internal";

/**
 * A 401 from `/mcp` says how to authenticate (RFC 9110 section 11.6.1, RFC 6750): a Bearer token, and when one was
 * presented, that it was not valid.
 */
function invalidAuth(reply: FastifyReply, presented: boolean): KxmError {
  reply.header("www-authenticate", `Bearer realm="kxm"${presented ? ', error="invalid_token"' : ""}`);
  return new KxmError("invalid_auth", "the MCP endpoint needs an agent key as a Bearer token");
}

/** The header that marks a tool's in-process call to a route, so the one `/mcp` request is all that is counted. */
const IN_PROCESS_HEADER = "x-kxm-in-process";

/**
 * A per-app secret for {@link IN_PROCESS_HEADER}: only the hub's own injected requests carry it, so an outside
 * caller cannot claim the exemption from the rate limit.
 */
export function createInProcessMark(): { readonly value: string; matches(request: FastifyRequest): boolean } {
  const value = randomBytes(32).toString("base64url");
  const expected = Buffer.from(value);
  return {
    value,
    matches(request) {
      const presented = request.headers[IN_PROCESS_HEADER];
      if (typeof presented !== "string") return false;
      const bytes = Buffer.from(presented);
      return bytes.length === expected.length && timingSafeEqual(bytes, expected);
    },
  };
}

/** `fetch` over `app.inject`: the hub's routes, in-process, with every hook, check and log line they have. */
function injectFetch(app: FastifyInstance, mark: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers[IN_PROCESS_HEADER] = mark;
    const response = await app.inject({
      method: (init?.method ?? "GET") as InjectOptions["method"],
      url: `${url.pathname}${url.search}`,
      headers,
      ...(typeof init?.body === "string" ? { payload: init.body } : {}),
    });
    const contentType = response.headers["content-type"];
    return new Response(response.body, {
      status: response.statusCode,
      headers: typeof contentType === "string" ? { "content-type": contentType } : {},
    });
  };
}

/**
 * Registers `POST /mcp` (the tools), `GET`/`DELETE /mcp` (405: the endpoint is stateless) and `GET /mcp/whoami`.
 * Every one first checks `Origin` (403 `origin_not_allowed` unless absent, loopback or in `allowedOrigins`), then
 * the credential (401 `invalid_auth` with `WWW-Authenticate`).
 */
export function registerMcp(
  app: FastifyInstance,
  hub: HubServices,
  mark: string,
  allowedOrigins: readonly string[],
): void {
  const inject = injectFetch(app, mark);
  const checkOrigin = async (request: FastifyRequest) => {
    const origin = request.headers.origin;
    if (!isAllowedOrigin(typeof origin === "string" ? origin : undefined, allowedOrigins)) {
      throw new KxmError(
        "origin_not_allowed",
        "the request's Origin is not a loopback origin or one listed in KXM_MCP_ALLOWED_ORIGINS",
      );
    }
  };

  app.get(
    MCP_PATHS.whoami,
    { schema: { hide: true }, onRequest: checkOrigin },
    async (request, reply): Promise<Whoami> => {
      const credential = presentedCredential(request);
      if (credential === undefined || credential === "") throw invalidAuth(reply, credential === "");
      if (hub.admin?.matches(credential)) return { kind: "admin" };
      const agent = await hub.store.authenticateAgent(credential);
      if (agent === undefined) throw invalidAuth(reply, true);
      return { kind: "agent", project: agent.project, agentId: agent.agentId };
    },
  );

  app.post(MCP_PATHS.endpoint, {
    schema: { hide: true },
    onRequest: checkOrigin,
    // Authentication runs before the body is read, as on every route of the API.
    preParsing: async (request, reply, payload) => {
      const credential = presentedCredential(request);
      if (credential === undefined || credential === "") throw invalidAuth(reply, credential === "");
      const agent = await hub.store.authenticateAgent(credential);
      if (agent === undefined) throw invalidAuth(reply, true);
      AGENTS.set(request, { credential, project: agent.project, agentId: agent.agentId });
      return payload;
    },
    handler: async (request, reply) => {
      const agent = AGENTS.get(request);
      if (agent === undefined) throw invalidAuth(reply, false);
      const client = createHubClient({ baseUrl: IN_PROCESS_BASE, token: agent.credential, fetch: inject });
      const server = createKxmMcpServer({ client, project: agent.project, version: hub.version });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      reply.raw.on("close", () => {
        transport.close().catch(() => undefined);
        server.close().catch(() => undefined);
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ event: "mcp_failed", error: describeError(error) });
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { "content-type": "application/json" });
          reply.raw.end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "internal error" }, id: null }),
          );
        }
      }
    },
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header("allow", "POST")
      .send({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: the KXM MCP endpoint is stateless; POST only" },
        id: null,
      });
  app.get(MCP_PATHS.endpoint, { schema: { hide: true }, onRequest: checkOrigin }, notAllowed);
  app.delete(MCP_PATHS.endpoint, { schema: { hide: true }, onRequest: checkOrigin }, notAllowed);
}
