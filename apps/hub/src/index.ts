// The public surface of @kxm/hub. Named exports only: adding a name here makes it public on purpose.
// Importing this module opens no database and reads no environment: `readHubEnv` and `serveHub` do, when called.
export {
  BODY_LIMIT_BYTES,
  buildHub,
  DEFAULT_RATE_LIMIT,
  DEFAULT_RETENTION_DAYS,
  type HubOptions,
  purgeExpired,
} from "./app.js";
export { ADMIN_ACTOR } from "./auth.js";
export { DEFAULT_DB_PATH, DEFAULT_SHUTDOWN_GRACE_MS, type HubEnv, readHubEnv } from "./env.js";
export { PROBLEM_CONTENT_TYPE } from "./problems.js";
export {
  exitIfStuck,
  type HubStopped,
  PURGE_INTERVAL_MS,
  type ServeHubOptions,
  type ServingHub,
  SHUTDOWN_MARGIN_MS,
  serveHub,
} from "./serve.js";
