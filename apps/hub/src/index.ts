// The public surface of @kxm/hub. Named exports only: adding a name here makes it public on purpose.
// Importing this module opens no database and reads no environment: `readHubEnv` and `serveHub` do, when called.
export { buildHub, type HubOptions, purgeExpired } from "./app.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { HubEnv } from "./env.js";
export { readHubEnv } from "./env.js";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { HubStopped, ServeHubOptions } from "./serve.js";
export { exitIfStuck, type ServingHub, SHUTDOWN_MARGIN_MS, serveHub } from "./serve.js";
