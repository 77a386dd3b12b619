// The public entry of @kxm/browser; see packages/browser/README.md and docs/guides/browser.md.
export { SteelClient } from "./client.js";
export { type BrowserEnv, type KeyLookup, resolveConfig, type SteelConfig } from "./config.js";
export { readBrowserEnv } from "./env.js";
export { type RunInSessionOptions, type RunInSessionResult, runInSession, withSession } from "./exec.js";
export { passCliLookup } from "./pass-cli.js";
export { redactSecret } from "./redact.js";
export { type Browser, type BrowserOptions, openBrowser, type SweepReport } from "./service.js";
export type { SweepEntry } from "./sweep.js";
export type { ControlState, SignedInCheck, SteelSession, TrackedSession } from "./types.js";
