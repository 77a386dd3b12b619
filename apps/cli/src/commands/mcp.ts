import { createHubClient } from "@kxm/contract";
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
    "themselves (see docs/examples/mcp/); it runs until its stdin closes.";
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
    const agent = await resolveAgent({ baseUrl, token });
    const client = createHubClient({ baseUrl, token });
    const server = createKxmMcpServer({ client, project: agent.project, version: this.config.version });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => resolve();
      process.stdin.once("end", () => resolve());
      process.stdin.once("close", () => resolve());
    });
    await server.connect(transport);
    process.stderr.write(`kxm mcp: serving ${agent.project} as ${agent.agentId} via ${baseUrl}\n`);
    await closed;
    await server.close().catch(() => undefined);
  }
}
