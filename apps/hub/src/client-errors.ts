import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { KxmError } from "@kxm/contract";
import type { FastifyBaseLogger } from "fastify";
import { PROBLEM_CONTENT_TYPE, toProblem } from "./problems.js";

/**
 * Failures Node's HTTP parser meets before Fastify sees a request (a negative or repeated Content-Length, one sent
 * with chunked, a bad chunk, a NUL in the path, a bad header name or version, headers over 16 KiB, a timeout) as
 * catalogue errors. Details never say what the client sent.
 */
function clientErrorProblem(parserCode: string | undefined): KxmError {
  switch (parserCode) {
    case "HPE_HEADER_OVERFLOW":
      return new KxmError("headers_too_large", "the request line and headers are over 16 KiB");
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return new KxmError("request_timeout", "the request's headers or body did not arrive in time");
    default:
      return new KxmError("malformed_http", "the request is not well-formed HTTP/1.1");
  }
}

/** The bytes of a whole HTTP/1.1 answer carrying `error` as a problem document, closing the connection. */
function rawProblemResponse(error: KxmError): string {
  const body = JSON.stringify(toProblem(error));
  const status = error.status;
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** A parser error code as Node names it (`HPE_INVALID_METHOD`), never anything else the error carries. */
function safeCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : undefined;
}

/**
 * Fastify's `clientErrorHandler`: answers a request Node could not parse with a problem document and closes the
 * connection once it is written. Fastify's own handler answers `{"error":"Bad Request"}` and logs the error
 * object, whose `rawPacket` holds the client's bytes (the hub's error serializer drops it, but only there); this
 * one logs the parser's code and nothing else of the error.
 */
export function createClientErrorHandler(log: () => FastifyBaseLogger) {
  return (error: Error, socket: Socket): void => {
    const parserCode = safeCode(error);
    if (parserCode === "ECONNRESET" || socket.destroyed) return;
    const problem = clientErrorProblem(parserCode);
    log().info({ event: "client_error", status: problem.status, code: problem.code, parserCode });
    const answer = () => {
      if (socket.destroyed || !socket.writable) socket.destroy();
      else socket.end(rawProblemResponse(problem), () => socket.destroy());
    };
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight === undefined || inFlight === null || inFlight.writableFinished) {
      answer();
    } else if (inFlight.req?.complete === true) {
      // The malformed bytes follow a whole request (pipelined on the same connection): that one is answered first,
      // so the client gets each answer in order and none is cut into by the problem's bytes.
      inFlight.once("finish", answer);
      inFlight.once("close", answer);
    } else if (!inFlight.headersSent) {
      // The request being read is the malformed one (a bad chunk in its body): the problem is its answer.
      answer();
    } else {
      socket.destroy();
    }
  };
}

/**
 * Node answers an `Expect` other than `100-continue` with a bare 417; this answers it as a problem document. The
 * request is not served, so the connection is closed after the answer.
 */
export function answerUnsupportedExpectation(
  log: () => FastifyBaseLogger,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (_request, response) => {
    const problem = new KxmError(
      "expectation_failed",
      "the hub supports no Expect header other than 100-continue",
    );
    log().info({ event: "client_error", status: problem.status, code: problem.code });
    const body = JSON.stringify(toProblem(problem));
    response.writeHead(problem.status, {
      "content-type": `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      "content-length": Buffer.byteLength(body),
      connection: "close",
    });
    response.end(body);
  };
}
