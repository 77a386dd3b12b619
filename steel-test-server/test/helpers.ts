// A loopback site for the tests and a check that no process of a server survives it.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pidsMentioning } from "../src/chromium.js";

export interface Site {
  url: string;
  close(): Promise<void>;
}

/** Serves `pages` (path -> HTML) on 127.0.0.1; anything else is a 404 page. */
export async function startSite(pages: Record<string, string>): Promise<Site> {
  const server: Server = createServer((req, res) => {
    const html = pages[req.url ?? "/"];
    res.writeHead(html === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
    res.end(html ?? "<title>missing</title><p>not here</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when no process names the server's temp folder and the folder is gone. */
export function leftNothing(tempRoot: string): boolean {
  return pidsMentioning(tempRoot).length === 0 && !existsSync(tempRoot);
}

export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
