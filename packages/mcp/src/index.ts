// The public surface of @kxm/mcp. Named exports only: adding a name here makes it public on purpose.
export { type ResolveAgentOptions, resolveAgent } from "./agent.js";
export { createKxmMcpServer, type KxmMcpServerOptions, toolError } from "./server.js";
export { KXM_TOOLS, type KxmTool } from "./tools.js";
