// @kxm/steel-test-server: a stand-in for Steel's REST API and CDP endpoint, for KXM's tests and benchmarks only.
//
// What it is: an HTTP server on 127.0.0.1 (a free port) answering Steel's session routes (POST/GET /v1/sessions,
// GET /v1/sessions/:id, POST /v1/sessions/:id/release, POST /v1/sessions/release, POST /v1/scrape,
// POST /v1/screenshot, the viewer page GET /v1/sessions/debug?sessionId=<id>) with Steel's JSON shapes, and a CDP
// WebSocket at /v1/devtools?sessionId=<id>&apiKey=<key> proxied to that session's own real Chromium (headless,
// a fresh profile each), so playwright-core's connectOverCDP and agent-browser --cdp drive a real browser through
// it. The "cloud" flavour checks the key (the steel-api-key header on REST, apiKey on CDP: 401 otherwise) and ends
// each session at its timeout; the "open-source" flavour reproduces what steel-browser 0.5.2 does instead (one
// session at a time, a create releases the current one, release ignores the id, timeout ignored, no key checked,
// an idle placeholder session after each release, any id it does not hold answered as "released"). Test hooks
// (the `now` and `releaseIgnoresId` options, expire, forget, addSession) shape what a test needs: see README.md.
//
// What it does not prove: that KXM works against Steel's real deployment (its scaling and session limits, its
// real error bodies beyond the shapes copied here, its viewer, which is an interactive screencast and not the page
// list served here, its proxies, CAPTCHA solving, fingerprinting and session context, its pagination limits) or
// behind an operator's authenticating gateway (TLS, wss, a key checked elsewhere). The opt-in live suite, run with
// STEEL_API_URL set, covers that.
export { type ChromiumProcess, chromiumFlags, launchChromium } from "./chromium.js";
export {
  type Flavour,
  type ForeignSession,
  type RecordedRequest,
  type SessionStatus,
  type SteelTestServer,
  type SteelTestServerOptions,
  startSteelTestServer,
  type TestSessionView,
} from "./server.js";
