// A loopback CDP relay for a command run inside a session: the command connects to ws://127.0.0.1:<port>/<token>
// (no key in it), and the relay connects upstream with the session's real CDP URL, which holds the key. While a
// person holds the session the relay refuses new connections and closes open ones, so the agent's tools cannot
// act behind the operator's back.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";

/** The WebSocket close code for "a person holds the session" (policy violation). */
export const CLOSE_HUMAN_CONTROL = 1008;
/** How often the relay asks whether the agent may still act: 500 ms. */
const DEFAULT_POLL_MS = 500;
/** CDP messages (screenshots, large DOMs) can be big: up to 256 MiB. */
const MAX_PAYLOAD = 256 * 1024 * 1024;

export interface RelayOptions {
  /** The upstream CDP URL (it holds the key); asked for each new connection, may throw to refuse it. */
  upstream: () => Promise<string>;
  /** Whether the agent may act now; false closes every connection and refuses new ones. */
  allowed: () => boolean | Promise<boolean>;
  pollMs?: number;
}

export interface CdpRelay {
  /** `ws://127.0.0.1:<port>/<token>`: no key, a random path token only this relay's command knows. */
  url: string;
  /** Open client connections. */
  connections(): number;
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, text: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** A close code one side may send on: the reserved ones (1005, 1006, 1015) become 1011. */
function sendable(code: number): number {
  return code === 1000 ||
    (code >= 1001 && code <= 1014 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code < 5000)
    ? code
    : 1011;
}

function forward(from: WebSocket, to: WebSocket): void {
  from.on("message", (data: RawData, isBinary: boolean) => {
    if (to.readyState === WebSocket.OPEN) to.send(data, { binary: isBinary });
  });
  from.on("close", (code: number, reason: Buffer) => {
    if (to.readyState === WebSocket.OPEN || to.readyState === WebSocket.CONNECTING) {
      to.close(sendable(code), reason.toString().slice(0, 120));
    }
  });
  from.on("error", () => to.terminate());
}

/** Starts the relay on a free loopback port. */
export async function startCdpRelay(options: RelayOptions): Promise<CdpRelay> {
  const token = randomBytes(24).toString("base64url");
  const expected = Buffer.from(`/${token}`);
  const pairs = new Set<{ client: WebSocket; upstream: WebSocket }>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD, perMessageDeflate: false });
  const server = createServer((_request, response) => {
    response.writeHead(404, { "content-type": "text/plain" }).end("CDP relay: WebSocket only\n");
  });

  const closeAll = (reason: string) => {
    for (const pair of pairs) {
      pair.client.close(CLOSE_HUMAN_CONTROL, reason);
      pair.upstream.terminate();
    }
  };

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = Buffer.from((request.url ?? "").split("?", 1)[0] ?? "");
    if (path.length !== expected.length || !timingSafeEqual(path, expected)) {
      refuse(socket, 404, "Not Found", "unknown relay path\n");
      return;
    }
    let target: string;
    try {
      if (!(await options.allowed())) throw new Error("held");
      target = await options.upstream();
    } catch {
      refuse(socket, 409, "Conflict", "a person holds this browser session (or it is released)\n");
      return;
    }
    const upstream = new WebSocket(target, { maxPayload: MAX_PAYLOAD, perMessageDeflate: false });
    upstream.once("error", () => {
      if (upstream.readyState !== WebSocket.OPEN)
        refuse(socket, 502, "Bad Gateway", "the session's CDP endpoint refused\n");
    });
    upstream.once("open", () => {
      wss.handleUpgrade(request, socket, head, (client) => {
        const pair = { client, upstream };
        pairs.add(pair);
        const drop = () => pairs.delete(pair);
        client.once("close", drop);
        upstream.once("close", drop);
        forward(client, upstream);
        forward(upstream, client);
      });
    });
  }

  server.on("upgrade", (request, socket, head) => {
    socket.on("error", () => socket.destroy());
    void upgrade(request, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the CDP relay has no port");

  let checking = false;
  const timer = setInterval(() => {
    if (checking || pairs.size === 0) return;
    checking = true;
    Promise.resolve()
      .then(() => options.allowed())
      .catch(() => false)
      .then((allowed) => {
        if (!allowed) closeAll("a person holds this browser session");
      })
      .finally(() => {
        checking = false;
      });
  }, options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();

  return {
    url: `ws://127.0.0.1:${address.port}/${token}`,
    connections: () => pairs.size,
    close: async () => {
      clearInterval(timer);
      for (const pair of pairs) {
        pair.client.terminate();
        pair.upstream.terminate();
      }
      wss.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
