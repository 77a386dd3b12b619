// The one module of @kxm/browser that reads process.env: the variables resolveConfig() takes, as a plain record,
// and a copy of the environment for the command `runInSession` starts.
import type { BrowserEnv } from "./config.js";

/** The STEEL_* and KXM_BROWSER_* variables (and the two the default state folder comes from). */
export function readBrowserEnv(): BrowserEnv {
  const env = process.env;
  return {
    STEEL_API_URL: env.STEEL_API_URL,
    STEEL_UI_URL: env.STEEL_UI_URL,
    STEEL_API_KEY: env.STEEL_API_KEY,
    USE_PASS_CLI: env.USE_PASS_CLI,
    STEEL_PASS_VAULT: env.STEEL_PASS_VAULT,
    STEEL_PASS_ITEM: env.STEEL_PASS_ITEM,
    STEEL_PASS_FIELD: env.STEEL_PASS_FIELD,
    KXM_BROWSER_STATE_DIR: env.KXM_BROWSER_STATE_DIR,
    KXM_BROWSER_TIMEOUT_MS: env.KXM_BROWSER_TIMEOUT_MS,
    XDG_STATE_HOME: env.XDG_STATE_HOME,
    HOME: env.HOME,
  };
}

/**
 * The environment a command inside a session inherits: this process's, without the Steel key (the command gets
 * a loopback relay instead, so it never holds the key).
 */
export function childEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== "STEEL_API_KEY") out[name] = value;
  }
  return out;
}
