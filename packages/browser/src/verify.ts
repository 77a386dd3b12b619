// The signed-in check before an agent resumes: attach over CDP (playwright-core's connectOverCDP, loaded only
// when a check runs), look at every page of the session, detach without closing anything.
import { KxmError } from "@kxm/contract";
import { describeUrl, redactSecret } from "./redact.js";
import type { SignedInCheck } from "./types.js";

export interface VerifyResult {
  ok: boolean;
  /** What was found, for a person: page origins and paths, which checks held; never a query or the key. */
  detail: string;
}

/** Removes every ws/http URL's query (where the key rides) and the key itself from `text`; keeps one line. */
function clean(text: string, secret: string | undefined): string {
  const withoutQueries = text.replace(/\b(?:wss?|https?):\/\/[^\s'"]+/g, (url) => describeUrl(url));
  return redactSecret(withoutQueries, secret).split(/\r?\n/, 1)[0] ?? "";
}

/**
 * Attaches to the browser at `cdpUrl` and checks whether any page shows the signed-in state: its URL contains
 * `check.url`, an element matches `check.selector`, its text contains `check.text` (each given field must hold
 * on the same page). Detaches afterwards; the remote browser and its pages stay as they were. Failing to attach
 * is `browser_unreachable`, with the URL's query and the key left out of the message.
 */
export async function verifySignedIn(
  cdpUrl: string,
  check: SignedInCheck,
  options: { timeoutMs: number; secret?: string },
): Promise<VerifyResult> {
  const { chromium } = await import("playwright-core");
  let browser: Awaited<ReturnType<typeof chromium.connectOverCDP>>;
  try {
    browser = await chromium.connectOverCDP(cdpUrl, { timeout: options.timeoutMs });
  } catch (error) {
    const reason = clean(error instanceof Error ? error.message : String(error), options.secret);
    throw new KxmError("browser_unreachable", `cannot attach over CDP to ${describeUrl(cdpUrl)}: ${reason}`);
  }
  try {
    const pages = browser.contexts().flatMap((context) => context.pages());
    if (pages.length === 0) return { ok: false, detail: "the session has no open page" };
    const seen: string[] = [];
    for (const page of pages) {
      const failed: string[] = [];
      const url = page.url();
      if (check.url !== undefined && !url.includes(check.url)) failed.push("URL");
      if (check.selector !== undefined) {
        const count = await page
          .locator(check.selector)
          .count()
          .catch(() => 0);
        if (count === 0) failed.push("selector");
      }
      if (check.text !== undefined) {
        const body = await page
          .locator("body")
          .innerText({ timeout: options.timeoutMs })
          .catch(() => "");
        if (!body.includes(check.text)) failed.push("text");
      }
      const where = describeUrl(url);
      if (failed.length === 0) return { ok: true, detail: `signed in on ${where}` };
      seen.push(`${where}: ${failed.join(", ")} did not match`);
    }
    return { ok: false, detail: clean(seen.join("; "), options.secret) };
  } finally {
    // For a browser attached over CDP, close() only detaches: the session's own pages stay open.
    await browser.close().catch(() => undefined);
  }
}
