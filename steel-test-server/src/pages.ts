/// <reference lib="dom" />
// POST /v1/scrape and POST /v1/screenshot: one-shot page work without a session, in a throwaway Chromium the
// server starts at the first such request and keeps for the next ones (a fresh browser context each time, so no
// cookie or storage crosses requests), killed by close().
import { type Browser, chromium } from "playwright-core";
import { type ChromiumProcess, launchChromium } from "./chromium.js";

export type ScrapeFormat = "html" | "markdown" | "text";

export interface ScrapeAnswer {
  content: { html?: string; markdown?: string; text?: string };
  metadata: { title: string; statusCode: number; urlSource: string; timestamp: string };
  links: Array<{ url: string; text: string }>;
}

/** Runs inside the page: a plain Markdown rendering of the body (headings, paragraphs, lists, links, code). */
function pageMarkdown(): string {
  const out: string[] = [];
  const inline = (node: Node): string => {
    if (node.nodeType === Node.TEXT_NODE) return (node.textContent ?? "").replace(/\s+/g, " ");
    if (!(node instanceof HTMLElement)) return "";
    const inner = Array.from(node.childNodes).map(inline).join("");
    const tag = node.tagName.toLowerCase();
    if (tag === "a") return `[${inner.trim()}](${(node as HTMLAnchorElement).href})`;
    if (tag === "strong" || tag === "b") return `**${inner.trim()}**`;
    if (tag === "em" || tag === "i") return `*${inner.trim()}*`;
    if (tag === "code") return `\`${inner.trim()}\``;
    if (tag === "br") return "\n";
    return inner;
  };
  const block = (element: Element): void => {
    const tag = element.tagName.toLowerCase();
    if (["script", "style", "noscript", "template"].includes(tag)) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading !== null) {
      out.push(`${"#".repeat(Number(heading[1]))} ${inline(element).trim()}`);
    } else if (tag === "p") {
      out.push(inline(element).trim());
    } else if (tag === "pre") {
      out.push(`\`\`\`\n${element.textContent ?? ""}\n\`\`\``);
    } else if (tag === "ul" || tag === "ol") {
      Array.from(element.children).forEach((item, index) => {
        out.push(`${tag === "ol" ? `${index + 1}.` : "-"} ${inline(item).trim()}`);
      });
    } else if (element.children.length === 0) {
      const text = inline(element).trim();
      if (text !== "") out.push(text);
    } else {
      for (const child of Array.from(element.children)) block(child);
    }
  };
  if (document.body !== null) block(document.body);
  return out.filter((line) => line !== "").join("\n\n");
}

/**
 * A function as the script a page runs. A transpiler that keeps function names (tsx, esbuild's keepNames) wraps
 * each inner function in a call to its `__name` helper, which exists in Node but not in the page, so the
 * function's own source would throw there: the script defines an identity `__name` first.
 */
export function pageScript(fn: () => unknown): string {
  return `(() => { const __name = (fn) => fn; return (${fn.toString()})(); })()`;
}

const PAGE_MARKDOWN_SCRIPT = pageScript(pageMarkdown);

export class PageWorker {
  private chromium: Promise<{ process: ChromiumProcess; browser: Browser }> | undefined;
  private running: ChromiumProcess | undefined;

  constructor(
    private readonly executablePath: string,
    private readonly parentDir: string,
  ) {}

  private browser(): Promise<{ process: ChromiumProcess; browser: Browser }> {
    this.chromium ??= (async () => {
      const process = await launchChromium({
        executablePath: this.executablePath,
        parentDir: this.parentDir,
      });
      this.running = process;
      try {
        return { process, browser: await chromium.connectOverCDP(process.wsEndpoint) };
      } catch (error) {
        await process.kill();
        throw error;
      }
    })();
    const started = this.chromium;
    // A failed start is not cached: the next request tries again.
    started.catch(() => {
      if (this.chromium === started) this.chromium = undefined;
    });
    return started;
  }

  private async withPage<T>(
    url: string,
    fn: (page: import("playwright-core").Page, status: number) => Promise<T>,
  ): Promise<T> {
    const { browser } = await this.browser();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const response = await page.goto(url, { waitUntil: "load", timeout: 30_000 });
      return await fn(page, response?.status() ?? 0);
    } finally {
      await context.close().catch(() => undefined);
    }
  }

  scrape(url: string, formats: readonly ScrapeFormat[], now: Date): Promise<ScrapeAnswer> {
    return this.withPage(url, async (page, statusCode) => {
      const content: ScrapeAnswer["content"] = {};
      if (formats.includes("html")) content.html = await page.content();
      if (formats.includes("markdown")) content.markdown = await page.evaluate(PAGE_MARKDOWN_SCRIPT);
      if (formats.includes("text")) {
        // The rendered text, as a reader sees it (textContent would include scripts and hidden nodes).
        // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
        content.text = await page.evaluate(() => document.body?.innerText ?? "");
      }
      const links = await page.evaluate(() =>
        Array.from(document.querySelectorAll("a[href]")).map((anchor) => ({
          url: (anchor as HTMLAnchorElement).href,
          text: (anchor.textContent ?? "").trim(),
        })),
      );
      return {
        content,
        metadata: { title: await page.title(), statusCode, urlSource: url, timestamp: now.toISOString() },
        links,
      };
    });
  }

  screenshot(url: string, fullPage: boolean): Promise<Buffer> {
    return this.withPage(url, (page) => page.screenshot({ type: "png", fullPage }));
  }

  /** The pid of the throwaway Chromium while it runs. */
  pid(): number | undefined {
    return this.running === undefined || this.running.exited() ? undefined : this.running.pid;
  }

  async close(): Promise<void> {
    const started = this.chromium;
    this.chromium = undefined;
    if (started === undefined) return;
    const running = await started.catch(() => undefined);
    if (running === undefined) return;
    await running.browser.close().catch(() => undefined);
    await running.process.kill();
  }
}
