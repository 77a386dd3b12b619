import { isKxmError } from "@kxm/contract";
import { createHubClient } from "@kxm/contract/client";
import { createKxmMcpServer, resolveAgent } from "@kxm/mcp";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { KxmCommand, UsageError } from "../base.js";
import { hubFlag, hubSettings } from "../hub-client.js";

export default class Mcp extends KxmCommand {
  static override summary = "Serve KXM's agent tools over MCP on stdio, for a local agent harness.";
  static override description =
    "Runs a Model Context Protocol server on stdin and stdout offering kxm_context, kxm_recall, kxm_promote " +
    "(which only proposes) and kxm_episode. Every tool call is forwarded to the hub at --hub or KXM_HUB_URL " +
    "with the agent key in KXM_AGENT_KEY; the project comes from that key, never from an argument. stdout " +
    "carries protocol messages only; the one start-up line and any failure go to stderr. Harnesses start it " +
    "themselves (see docs/examples/mcp/); it runs until its stdin closes. A hub that is down at start-up is " +
    "no failure: the tools answer hub_unreachable until it is reachable. A key the hub refuses exits 1.";
  static override examples = [
    "KXM_AGENT_KEY=kxm_... <%= config.bin %> <%= command.id %>",
    "<%= config.bin %> <%= command.id %> --hub http://127.0.0.1:7420",
  ];
  static override flags = { hub: hubFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp);
    const { env, url: baseUrl } = hubSettings(flags.hub);
    const token = env.KXM_AGENT_KEY;
    if (token === undefined) {
      throw new UsageError(
        "environment variable KXM_AGENT_KEY is unset: export the agent's key for its project",
      );
    }
    // The hub may start after the harness: only a key the hub refuses stops the server here. Until the hub
    // answers, each tool call asks again and answers hub_unreachable meanwhile.
    let agent: { project: string; agentId: string } | undefined;
    try {
      agent = await resolveAgent({ baseUrl, token, timeoutMs: 5_000 });
    } catch (error) {
      if (!isKxmError(error) || error.code !== "hub_unreachable") throw error;
    }
    const client = createHubClient({ baseUrl, token });
    const project = agent?.project ?? (async () => (await resolveAgent({ baseUrl, token })).project);
    const server = createKxmMcpServer({ client, project, version: this.config.version });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => resolve();
      process.stdin.once("end", () => resolve());
      process.stdin.once("close", () => resolve());
    });
    await server.connect(transport);
    this.writeErrLine(
      agent === undefined
        ? `kxm mcp: the hub at ${baseUrl} is not reachable yet; tools answer hub_unreachable until it is`
        : `kxm mcp: serving ${agent.project} as ${agent.agentId} via ${baseUrl}`,
    );
    await closed;
    await server.close().catch(() => undefined);
  }
}
