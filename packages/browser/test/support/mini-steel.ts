// A minimal in-memory stand-in for Steel's session REST API and CDP endpoint, for the service and exec tests of
// this package while the full Steel-compatible test server (@kxm/steel-test-server) is written beside it. Every
// session's CDP endpoint (/v1/devtools?sessionId=&apiKey=) is proxied to one shared real Chromium; the key is
// checked on REST (steel-api-key header) and CDP (apiKey query). `oneAtATime` reproduces open-source Steel's
// facts: a create releases the previous session, a release ignores the id and releases the current one, and
// an idle placeholder session appears after each release. It does not prove anything about Steel itself.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { WebSocket, WebSocketServer } from "ws";

interface MiniSession {
  id: string;
  createdAt: string;
  status: "live" | "released";
  timeout: number;
}

export interface MiniSteel {
  url: string;
  sessions: Map<string, MiniSession>;
  requests: Array<{ method: string; path: string; hadKey: boolean }>;
  /** CDP upgrades that reached Chromium. */
  cdpConnections: number;
  close(): Promise<void>;
}

export async function startMiniSteel(options: {
  key: string;
  chromiumWs: string;
  oneAtATime?: boolean;
  /** A release releases every live session, whatever id it names. */
  releaseIgnoresId?: boolean;
  now?: () => number;
}): Promise<MiniSteel> {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, MiniSession>();
  const requests: MiniSteel["requests"] = [];
  const sockets = new Set<WebSocket>();
  const state = { cdpConnections: 0 };

  const newSession = (timeout: number): MiniSession => {
    const session: MiniSession = {
      id: randomUUID(),
      createdAt: new Date(now()).toISOString(),
      status: "live",
      timeout,
    };
    sessions.set(session.id, session);
    return session;
  };
  const releaseCurrent = () => {
    for (const session of sessions.values()) if (session.status === "live") session.status = "released";
  };

  const send = (response: import("node:http").ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, { "content-type": "application/json" }).end(text);
  };

  const server = createServer((request: IncomingMessage, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const hadKey = request.headers["steel-api-key"] === options.key;
      requests.push({ method: request.method ?? "", path: url.pathname, hadKey });
      if (!hadKey) return send(response, 401, { message: "Unauthorized" });
      const release = /^\/v1\/sessions\/([^/]+)\/release$/.exec(url.pathname);
      const one = /^\/v1\/sessions\/([^/]+)$/.exec(url.pathname);
      if (request.method === "POST" && url.pathname === "/v1/sessions") {
        const timeout = Number((JSON.parse(body || "{}") as { timeout?: number }).timeout ?? 300_000);
        if (options.oneAtATime) releaseCurrent();
        return send(response, 200, newSession(timeout));
      }
      if (request.method === "GET" && url.pathname === "/v1/sessions") {
        return send(response, 200, { sessions: [...sessions.values()] });
      }
      if (request.method === "POST" && release) {
        const id = decodeURIComponent(release[1] ?? "");
        if (options.oneAtATime) {
          releaseCurrent();
          newSession(300_000); // the idle placeholder
          return send(response, 200, { success: true });
        }
        const session = sessions.get(id);
        if (session === undefined) return send(response, 404, { message: "Session not found" });
        if (options.releaseIgnoresId) releaseCurrent();
        session.status = "released";
        return send(response, 200, session);
      }
      if (request.method === "GET" && one) {
        const session = sessions.get(decodeURIComponent(one[1] ?? ""));
        if (session === undefined) return send(response, 404, { message: "Session not found" });
        return send(response, 200, session);
      }
      send(response, 404, { message: "Not found" });
    });
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request, socket, head) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const session = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (
      url.pathname !== "/v1/devtools" ||
      url.searchParams.get("apiKey") !== options.key ||
      session?.status !== "live"
    ) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
      return;
    }
    const upstream = new WebSocket(options.chromiumWs, {
      perMessageDeflate: false,
      maxPayload: 256 * 1024 * 1024,
    });
    upstream.once("error", () => socket.destroy());
    upstream.once("open", () => {
      wss.handleUpgrade(request, socket, head, (client) => {
        state.cdpConnections += 1;
        sockets.add(client);
        sockets.add(upstream);
        client.on(
          "message",
          (data, binary) => upstream.readyState === WebSocket.OPEN && upstream.send(data, { binary }),
        );
        upstream.on(
          "message",
          (data, binary) => client.readyState === WebSocket.OPEN && client.send(data, { binary }),
        );
        client.on("close", () => upstream.close());
        upstream.on("close", () => client.close());
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    sessions,
    requests,
    get cdpConnections() {
      return state.cdpConnections;
    },
    close: async () => {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
