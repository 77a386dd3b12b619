// @ts-check
// The browser section: session create to first CDP-driven page, and the sweep over 100 sessions, each way beside
// KXM's with its p50 as a ratio of KXM's (above 1: KXM is faster).
import { ms, ratio, table } from "./format.mjs";

/**
 * @param {any} browser
 */
export function browserReport(browser) {
  if ("skipped" in browser) return `Not measured: ${browser.skipped}.`;
  const { firstPage, sweep } = browser;
  /** @param {string} name @param {any} stats @param {any} base */
  const row = (name, stats, base) => [
    name,
    ms(stats.p50),
    ms(stats.p95),
    String(stats.n),
    name.startsWith("KXM") ? "1.00×" : ratio(stats.p50 / base.p50),
  ];
  return [
    "On the Steel test server (a real Chromium per session behind Steel's REST API and CDP endpoint, on loopback), " +
      "not on a Steel deployment. Create to first page: create a session, attach playwright-core over CDP, load a " +
      "loopback page. KXM's create also reads the session back and lists the others (it verifies what it got); " +
      "steel-sdk is given the server as its baseURL; a local launch starts /usr/bin/chromium with no Steel at all.",
    "",
    table(
      ["create to first page", "p50 ms", "p95 ms", "runs", "p50 / KXM"],
      [
        row("KXM (openBrowser, cdpUrl, connectOverCDP)", firstPage.kxm, firstPage.kxm),
        row("steel-sdk (sessions.create, connectOverCDP)", firstPage.steelSdk, firstPage.kxm),
        row("local chromium.launch", firstPage.local, firstPage.kxm),
      ],
      ["l", "r", "r", "r", "r"],
    ),
    "",
    `Sweep: ${sweep.sessions} untracked sessions past the idle limit (their Chromium never started), all released. ` +
      "KXM opens its tracker, lists, releases one session and reads the list back (open-source Steel may release " +
      "another session than the one asked for), then releases the rest eight at a time and reads the list once " +
      "more; the steel-sdk loop lists once and releases each, one at a time, with no check.",
    "",
    table(
      [`sweep of ${sweep.sessions}`, "p50 ms", "p95 ms", "runs", "ms per session", "p50 / KXM"],
      [
        [...row("KXM sweep", sweep.kxm, sweep.kxm).slice(0, 4), ms(sweep.kxm.perSessionMs), "1.00×"],
        [
          ...row("steel-sdk list + release", sweep.steelSdk, sweep.kxm).slice(0, 4),
          ms(sweep.steelSdk.perSessionMs),
          ratio(sweep.steelSdk.p50 / sweep.kxm.p50),
        ],
      ],
      ["l", "r", "r", "r", "r", "r"],
    ),
  ].join("\n");
}
