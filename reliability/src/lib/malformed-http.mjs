// @ts-check
// Malformed HTTP written byte for byte on a raw socket, each with the catalogue answer the hub must give, and a
// reader that waits for the hub to close the connection.
import { connect } from "node:net";

/**
 * @typedef {object} MalformedCase
 * @property {string} name
 * @property {string} bytes what is written on the connection
 * @property {number} status the status the hub must answer
 * @property {string} code the catalogue code it must carry
 */

/**
 * The cases, each marked with `canary` so that a log or an answer repeating the request shows.
 * @param {string} canary
 * @param {string} adminToken
 * @returns {MalformedCase[]}
 */
export function malformedCases(canary, adminToken) {
  const post = (/** @type {string[]} */ headers, body = "", path = `/v1/projects/${canary}`) =>
    [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1", ...headers, "", body].join("\r\n");
  const auth = `Authorization: Bearer ${adminToken}`;
  /** @type {[string, string, number, string][]} */
  const cases = [
    ["a negative Content-Length", post(["Content-Length: -1"], "{}"), 400, "malformed_http"],
    [
      "a duplicate Content-Length",
      post(["Content-Length: 2", "Content-Length: 3"], "{}"),
      400,
      "malformed_http",
    ],
    ["a non-numeric Content-Length", post([`Content-Length: 1${canary}`], "{}"), 400, "malformed_http"],
    [
      "Content-Length with chunked",
      post(["Content-Length: 2", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
      400,
      "malformed_http",
    ],
    [
      "a bad chunk size",
      post(["Transfer-Encoding: chunked"], `zz\r\n${canary}\r\n0\r\n\r\n`),
      400,
      "malformed_http",
    ],
    [
      "a bad chunk in a real route's body",
      post(
        [auth, "Content-Type: application/json", "Transfer-Encoding: chunked"],
        `2\r\n{}\r\nzz\r\n${canary}\r\n`,
        "/v1/projects",
      ),
      400,
      "malformed_http",
    ],
    [
      "an unknown transfer coding",
      post(["Transfer-Encoding: gzip, chunked, x"], "0\r\n\r\n"),
      400,
      "malformed_http",
    ],
    ["a NUL in the path", `GET /v1/he\0alth-${canary} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
    ["a space in the path", `GET /v1/${canary} x/y HTTP/1.1\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
    [
      "a bad header name",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nBad ${canary}: y\r\n\r\n`,
      400,
      "malformed_http",
    ],
    [
      "a header without a colon",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\n${canary}\r\n\r\n`,
      400,
      "malformed_http",
    ],
    [
      "a control character in a header value",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: ${canary}\x01\r\n\r\n`,
      400,
      "malformed_http",
    ],
    ["a bare LF line ending", `GET /v1/health HTTP/1.1\nHost: x\n${canary}\n\n`, 400, "malformed_http"],
    [
      "an obsolete line folding",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n ${canary}\r\n\r\n`,
      400,
      "malformed_http",
    ],
    ["a bad HTTP version", `GET /v1/health HTTP/9.${canary}\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
    ["HTTP/2 preface on HTTP/1.1", `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n${canary}`, 400, "malformed_http"],
    ["an unknown method", `BREW /v1/${canary} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
    ["bytes that are not HTTP", `\x16\x03\x01${canary}\r\n\r\n`, 400, "malformed_http"],
    ["HTTP/1.1 without Host", `GET /v1/health?${canary} HTTP/1.1\r\n\r\n`, 400, "malformed_http"],
    [
      "headers over 16 KiB",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${canary}${"a".repeat(17_000)}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    [
      "a thousand headers",
      `GET /v1/health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 1_000 }, (_, i) => `X-${i}: ${canary}`).join("\r\n")}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    [
      "a URL over 16 KiB",
      `GET /v1/health?${canary}=${"q".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    [
      "an Expect other than 100-continue",
      post([`Expect: ${canary}`, "Content-Type: application/json", "Content-Length: 2"], "{}"),
      417,
      "expectation_failed",
    ],
  ];
  return cases.map(([name, bytes, status, code]) => ({ name, bytes, status, code }));
}

/**
 * Writes `bytes` on a new connection to `port` and reads until the hub closes it (or `waitMs` passes).
 * @param {number} port @param {string} bytes @param {number} [waitMs]
 * @returns {Promise<{ raw: string, closed: boolean }>}
 */
export function sendRaw(port, bytes, waitMs = 5_000) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    /** @type {Buffer[]} */
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ raw: Buffer.concat(chunks).toString("latin1"), closed: false });
    }, waitMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ raw: Buffer.concat(chunks).toString("latin1"), closed: true });
    });
    socket.write(bytes, "latin1");
  });
}

/**
 * The one answer in `raw`, parsed: status, headers and the body its Content-Length frames; undefined when `raw` is
 * not exactly one whole answer.
 * @param {string} raw
 */
export function onlyAnswer(raw) {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n");
  /** @type {Record<string, string>} */
  const headers = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? Number.NaN);
  const body = raw.slice(end + 4);
  if (Buffer.byteLength(body, "latin1") !== length) return undefined;
  return { status: Number(statusLine?.split(" ")[1]), headers, body };
}
