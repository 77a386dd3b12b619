// @ts-check
// Hubs that misbehave, on loopback ports of their own: what is under test is the CLI (how it reports a hub that
// answers garbage, HTML, a hostile problem document, or nothing), so a real hub is not what is wanted here, and a
// fake one is. Each is a plain TCP server so that it can send bytes no HTTP server library would.
import { createServer } from "node:net";

/**
 * @typedef {"garbage" | "html" | "problem" | "hang"} FakeHubKind
 * garbage: non-HTTP bytes, then close; html: an HTML page with status 200; problem: a 400 problem document whose
 * title and detail are `problem` (control and escape sequences in it); hang: accepts and never answers.
 */

/**
 * @typedef {object} FakeHub
 * @property {string} url
 * @property {(problem: string, prefix?: string) => void} setProblem the detail (and title) the `problem` kind sends
 *   for requests under `/<prefix>/` (a hub URL with that base path), or for all others without a prefix
 * @property {() => Promise<void>} close
 */

/**
 * Starts a fake hub of `kind` on 127.0.0.1, port 0.
 * @param {FakeHubKind} kind
 * @param {string} [problem] the detail the `problem` kind sends
 * @returns {Promise<FakeHub>}
 */
export async function startFakeHub(kind, problem = "\u001b]0;owned\u0007bad request") {
  /** @type {Map<string, string>} */
  const details = new Map([["", problem]]);
  /** @type {Set<import("node:net").Socket>} */
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    if (kind === "hang") return;
    // Answer once the request's head has arrived, so the client is reading when the answer comes.
    socket.once("data", (head) => {
      const prefix = /^[A-Z]+ \/([^/ ]+)\//.exec(head.toString("latin1"))?.[1] ?? "";
      const detail = details.get(prefix) ?? details.get("") ?? "";
      if (kind === "garbage") {
        socket.end(Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x0d, 0x0a, 0x7f, 0x9b, 0x41]));
        return;
      }
      const [status, type, body] =
        kind === "html"
          ? ["200 OK", "text/html", "<html><body><h1>It works!</h1>\u001b[2J</body></html>"]
          : [
              "400 Bad Request",
              "application/problem+json",
              JSON.stringify({
                type: "about:blank",
                title: detail,
                status: 400,
                code: "invalid_request",
                detail,
              }),
            ];
      const bytes = Buffer.from(body, "utf8");
      socket.end(
        `HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\ncontent-length: ${bytes.length}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    setProblem(next, prefix = "") {
      details.set(prefix, next);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL on which nothing listens: a port that was just free. @returns {Promise<string>} */
export async function refusingUrl() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return `http://127.0.0.1:${port}`;
}
