import { Args, Flags } from "@oclif/core";
import { BrowserCommand } from "../../browser-command.js";

export default class BrowserScreenshot extends BrowserCommand {
  static override summary = "Take a PNG screenshot of one page through Steel without a session.";
  static override description =
    "Asks Steel to load URL in a one-shot browser (POST /v1/screenshot) and writes the PNG it returns to --out " +
    "(replacing a file there). --full-page captures the whole page rather than the viewport. Nothing is tracked " +
    "and nothing needs releasing. --json prints {file, bytes}.";
  static override examples = [
    "<%= config.bin %> <%= command.id %> https://example.com --out example.png",
    "<%= config.bin %> <%= command.id %> https://example.com --out full.png --full-page --json",
  ];
  static override args = {
    url: Args.string({ description: "The page to capture: an http:// or https:// URL", required: true }),
  };
  static override flags = {
    out: Flags.string({ description: "The PNG file to write", helpValue: "<file.png>", required: true }),
    "full-page": Flags.boolean({ description: "Capture the whole page, not only the viewport" }),
  };

  async run(): Promise<{ file: string; bytes: number }> {
    const { args, flags } = await this.parse(BrowserScreenshot);
    const { resolve } = await import("node:path");
    const file = resolve(await this.workingFolder(flags.cwd), flags.out);
    const png = await this.withBrowser((browser) =>
      browser.screenshot({ url: args.url, fullPage: flags["full-page"] }),
    );
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, png);
    this.say(`Wrote ${file} (${png.byteLength} bytes).`);
    return { file, bytes: png.byteLength };
  }
}
