// What the test files share: servers closed after each test, REST and CDP calls with a key, a loopback site, and
// checks that no process of a server survives it.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { WebSocket } from "ws";
import { pidsMentioning } from "../src/chromium.js";
import { type SteelTestServer, startSteelTestServer } from "../src/index.js";

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

type StartOptions = NonNullable<Parameters<typeof startSteelTestServer>[0]>;

/** A `start(options)` whose servers (with `defaults` under each call's options) are all closed after each test. */
export function serverPerTest(
  defaults: StartOptions = {},
): (options?: StartOptions) => Promise<SteelTestServer> {
  const servers: SteelTestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (options = {}) => {
    const server = await startSteelTestServer({ ...defaults, ...options });
    servers.push(server);
    return server;
  };
}

/** A JSON answer, read field by field in the expectations. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read Steel's answers loosely and assert every field they use.
export type Json = Record<string, any>;

/** A REST call with `key` in Steel's header (none when null), and its status and JSON answer. */
export async function restCall(
  server: SteelTestServer,
  method: string,
  path: string,
  body: unknown,
  key: string | null,
): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers["steel-api-key"] = key;
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, json: (await answer.json()) as Json };
}

/** The CDP endpoint of a session, with `key` in its query as Steel's cloud takes it. */
export function devtoolsUrl(server: SteelTestServer, id: string, key: string): string {
  return `${server.url.replace(/^http/, "ws")}/v1/devtools?sessionId=${id}&apiKey=${key}`;
}

/** The status a plain WebSocket upgrade gets: 101 when accepted, else the refusal's status. */
export function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => {
      socket.terminate();
      resolve(101);
    });
    socket.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", (error) => {
      if (socket.readyState !== WebSocket.CLOSED) reject(error);
    });
  });
}
