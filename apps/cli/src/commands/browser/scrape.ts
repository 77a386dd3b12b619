import { Args, Flags } from "@oclif/core";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserScrape extends BrowserCommand {
  static override summary = "Fetch one page through Steel without a session.";
  static override description =
    "Asks Steel to load URL in a one-shot browser (POST /v1/scrape) and prints the page's content in the format " +
    "asked for (html by default, markdown or text when the deployment supports them). Nothing is tracked and " +
    "nothing needs releasing. The page is loaded by Steel's browser, so URL must be reachable from the deployment. " +
    "--json prints Steel's answer as it came.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> https://example.com",
    "<%= config.bin %> <%= command.id %> https://example.com --format markdown --json",
  ];
  static override args = {
    url: Args.string({ description: "The page to fetch: an http:// or https:// URL", required: true }),
  };
  static override flags = {
    format: Flags.string({
      description: "The content's format",
      options: ["html", "markdown", "text"],
      default: "html",
    }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(BrowserScrape);
    const format = flags.format as "html" | "markdown" | "text";
    const answer = await this.withBrowser((browser) => browser.scrape({ url: args.url, format }));
    if (!this.jsonEnabled()) {
      const content = contentOf(answer, format);
      this.writeOut(content.endsWith("\n") ? content : `${content}\n`);
    }
    return answer;
  }
}

/**
 * The page's content in Steel's answer: `content.<format>` (Steel's shape), else `content` or the answer itself
 * when a string, else the whole answer as JSON (a deployment that answers another shape still shows something).
 */
function contentOf(answer: unknown, format: string): string {
  if (typeof answer === "string") return answer;
  if (typeof answer === "object" && answer !== null && "content" in answer) {
    const content = (answer as { content: unknown }).content;
    if (typeof content === "string") return content;
    if (typeof content === "object" && content !== null && format in content) {
      const value = (content as Record<string, unknown>)[format];
      if (typeof value === "string") return value;
    }
  }
  return JSON.stringify(answer, null, 2);
}
