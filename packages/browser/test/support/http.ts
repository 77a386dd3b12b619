// Small loopback HTTP servers for the client's tests. They stand in for Steel's error answers (a 401, a 500, a
// body that is not JSON); the Steel-compatible test server (@kxm/steel-test-server) covers the normal ones.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterEach } from "vitest";

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const open: TestServer[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** Starts a loopback server answering every request with `handler`; closed after the test. */
export async function startServer(
  handler: (request: SeenRequest, response: ServerResponse) => void | Promise<void>,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const seen = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body };
      requests.push(seen);
      void Promise.resolve(handler(seen, response)).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const started: TestServer = {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(started);
  return started;
}

/** Answers `status` with `body` as JSON (or as given when a string or bytes). */
export function answer(
  response: ServerResponse,
  status: number,
  body: unknown,
  type = "application/json",
): void {
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  response.writeHead(status, { "content-type": type, "content-length": bytes.length }).end(bytes);
}
