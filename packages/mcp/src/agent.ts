import { isKxmError, KxmError, MCP_PATHS, WhoamiSchema } from "@kxm/contract";
import { unreachableReason } from "@kxm/contract/client";

export interface ResolveAgentOptions {
  /** The hub's base URL, such as `http://127.0.0.1:7420`. */
  readonly baseUrl: string;
  /** The agent key. */
  readonly token: string;
  readonly fetch?: typeof fetch;
  /** Milliseconds before the hub is abandoned (default 30,000). */
  readonly timeoutMs?: number;
}

/**
 * Who an agent key belongs to, asked of the hub (`GET /mcp/whoami`): the project and agent id. The project of every
 * tool call comes from here, never from an argument. The admin token is refused (`invalid_auth`): the MCP tools are
 * for agents, each confined to its project.
 */
export async function resolveAgent(
  options: ResolveAgentOptions,
): Promise<{ project: string; agentId: string }> {
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  const url = new URL(MCP_PATHS.whoami.slice(1), base);
  let response: Response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, {
      headers: { accept: "application/json", authorization: `Bearer ${options.token}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const reason = unreachableReason(error, options.timeoutMs ?? 30_000);
    throw new KxmError("hub_unreachable", `cannot reach the hub at ${base.replace(/\/+$/, "")}: ${reason}`);
  }
  const payload: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const problem = payload as { code?: unknown; detail?: unknown } | undefined;
    const candidate = { code: problem?.code, status: response.status };
    if (isKxmError(candidate)) {
      throw new KxmError(
        candidate.code,
        typeof problem?.detail === "string" ? problem.detail : candidate.code,
      );
    }
    throw new KxmError("internal_error", `the hub answered ${response.status} to ${MCP_PATHS.whoami}`);
  }
  const parsed = WhoamiSchema.safeParse(payload);
  if (!parsed.success)
    throw new KxmError("internal_error", "the hub's whoami answer does not match its schema");
  if (parsed.data.kind !== "agent") {
    throw new KxmError(
      "invalid_auth",
      "the MCP tools need an agent key (KXM_AGENT_KEY), not the admin token",
    );
  }
  return { project: parsed.data.project, agentId: parsed.data.agentId };
}
