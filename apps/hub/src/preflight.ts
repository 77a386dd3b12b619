// What `kxm hub serve` checks before it loads the server (Fastify and its plugins take seconds to import on a busy
// machine): the environment, and whether the database path can hold a database at all. Nothing here opens a file.
export { checkDatabasePath } from "@kxm/state-store/db-path";
/** @public Named by the signatures of this package's exports: a consumer may need to write them down. */
export type { HubEnv } from "./env.js";
export { parseWorkers, readHubEnv } from "./env.js";
