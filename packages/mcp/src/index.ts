// The public surface of @kxm/mcp. Named exports only: adding a name here makes it public on purpose.

/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { ResolveAgentOptions } from "./agent.js";
export { resolveAgent } from "./agent.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { KxmMcpServerOptions } from "./server.js";
export { createKxmMcpServer, toolError } from "./server.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { KxmTool } from "./tools.js";
export { KXM_TOOLS } from "./tools.js";
