import type { AddressInfo } from "node:net";
import { createServer, type Socket } from "node:net";
import { ERROR_CATALOGUE, type ErrorCode } from "@kxm/contract";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendRaw as sendRawBytes } from "../../../reliability/src/lib/malformed-http.mjs";
import { createClientErrorHandler } from "../src/client-errors.js";
import { ADMIN_TOKEN, createTestHub, type TestHub } from "./helpers.js";

const CANARY = "CANARY-raw-7c1d";

interface RawAnswer {
  /** Everything the hub wrote before it closed the connection. */
  raw: string;
  /** Whether the hub closed the connection (it must, after a malformed request). */
  closed: boolean;
}

/** Writes `bytes` on a fresh connection and reads until the hub closes it, or 3 s pass. */
const sendRaw = (port: number, bytes: string): Promise<RawAnswer> => sendRawBytes(port, bytes, 3_000);

interface ParsedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers in `raw`, in order (bodies framed by Content-Length). */
function parseAnswers(raw: string): ParsedAnswer[] {
  const answers: ParsedAnswer[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) throw new Error(`an incomplete answer: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    answers.push({ status: Number(statusLine?.split(" ")[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

function expectProblemAnswer(answer: ParsedAnswer | undefined, status: number, code: ErrorCode): void {
  expect(answer, "an answer").toBeDefined();
  expect(answer!.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(answer!.body);
  expect({ status: answer!.status, code: problem.code, problemStatus: problem.status }).toEqual({
    status,
    code,
    problemStatus: status,
  });
  expect(problem.title).toBe(ERROR_CATALOGUE[code].title);
  expect(answer!.body).not.toContain(CANARY);
}

const POST = (headers: string[], body = "") =>
  [`POST /v1/projects/${CANARY} HTTP/1.1`, "Host: 127.0.0.1", ...headers, "", body].join("\r\n");

/** Requests Node's parser refuses, each with the catalogue answer it must get. */
const MALFORMED: ReadonlyArray<readonly [name: string, bytes: string, status: number, code: ErrorCode]> = [
  ["a negative Content-Length", POST(["Content-Length: -1"], "{}"), 400, "malformed_http"],
  [
    "a duplicate Content-Length",
    POST(["Content-Length: 2", "Content-Length: 3"], "{}"),
    400,
    "malformed_http",
  ],
  [
    "Content-Length with chunked",
    POST(["Content-Length: 2", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
    400,
    "malformed_http",
  ],
  [
    "a bad chunk size",
    POST(["Transfer-Encoding: chunked"], `zz\r\n${CANARY}\r\n0\r\n\r\n`),
    400,
    "malformed_http",
  ],
  [
    "a bad chunk in the body of a real route",
    POST(
      [
        `Authorization: Bearer ${ADMIN_TOKEN}`,
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ],
      `2\r\n{}\r\nzz\r\n${CANARY}\r\n0\r\n\r\n`,
    ).replace(`/v1/projects/${CANARY}`, "/v1/projects"),
    400,
    "malformed_http",
  ],
  ["a NUL in the path", `GET /v1/he\0alth-${CANARY} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
  [
    "a bad header name",
    `GET /v1/health HTTP/1.1\r\nHost: x\r\nBad ${CANARY}: y\r\n\r\n`,
    400,
    "malformed_http",
  ],
  ["a bad HTTP version", `GET /v1/health HTTP/9.${CANARY}\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
  ["an unknown method", `BREW /v1/${CANARY} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, "malformed_http"],
  ["bytes that are not HTTP", `\x16\x03\x01${CANARY}\r\n\r\n`, 400, "malformed_http"],
  [
    "headers over 16 KiB",
    `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${CANARY}${"a".repeat(17_000)}\r\n\r\n`,
    431,
    "headers_too_large",
  ],
  [
    "a URL over 16 KiB",
    `GET /v1/health?${CANARY}=${"q".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    431,
    "headers_too_large",
  ],
  ["HTTP/1.1 without Host", `GET /v1/health?${CANARY} HTTP/1.1\r\n\r\n`, 400, "malformed_http"],
  [
    "an Expect other than 100-continue",
    POST([`Expect: ${CANARY}`, "Content-Type: application/json", "Content-Length: 2"], "{}"),
    417,
    "expectation_failed",
  ],
];

describe("malformed HTTP on a real socket", () => {
  let hub: TestHub;
  let port: number;
  beforeAll(async () => {
    hub = await createTestHub();
    await hub.app.listen({ host: "127.0.0.1", port: 0 });
    port = (hub.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await hub.dispose();
  });

  test.each(MALFORMED)(
    "%s is answered as problem+json and the connection is closed",
    async (_name, bytes, status, code) => {
      const { raw, closed } = await sendRaw(port, bytes);
      expect(closed, "the hub closed the connection").toBe(true);
      const answers = parseAnswers(raw);
      expect(answers).toHaveLength(1);
      expectProblemAnswer(answers[0], status, code);
      expect(answers[0]!.headers.connection).toBe("close");
    },
  );

  test("no log line carries what a malformed request sent", async () => {
    for (const [, bytes] of MALFORMED) await sendRaw(port, bytes);
    expect(hub.rawLogs.join("\n")).not.toContain(CANARY);
    const clientErrors = hub.logs.filter((line) => line.event === "client_error");
    expect(clientErrors.length).toBeGreaterThan(0);
    for (const line of clientErrors) expect(Object.keys(line)).not.toContain("err");
    // None of them reached the hub as a failure of its own.
    expect(hub.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  test("a malformed request pipelined after a good one: the good one is answered, then the problem, then close", async () => {
    const good = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
    const { raw, closed } = await sendRaw(
      port,
      `${good}GET /v1/x HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n`,
    );
    expect(closed).toBe(true);
    const answers = parseAnswers(raw);
    expect(answers.map((answer) => answer.status)).toEqual([200, 400]);
    expectProblemAnswer(answers[1], 400, "malformed_http");
  });

  test("well-formed edge cases keep working: HTTP/1.0 without Host, Expect: 100-continue, an absolute URL", async () => {
    const plain = parseAnswers((await sendRaw(port, "GET /v1/health HTTP/1.0\r\n\r\n")).raw);
    expect(plain.map((answer) => answer.status)).toEqual([200]);
    const absolute = parseAnswers(
      (await sendRaw(port, "GET http://127.0.0.1/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        .raw,
    );
    expect(absolute.map((answer) => answer.status)).toEqual([200]);
    const body = JSON.stringify({ id: "continued" });
    const continued = await sendRaw(
      port,
      POST(
        [
          `Authorization: Bearer ${ADMIN_TOKEN}`,
          "Expect: 100-continue",
          "Content-Type: application/json",
          `Content-Length: ${body.length}`,
          "Connection: close",
        ],
        body,
      ).replace(`/v1/projects/${CANARY}`, "/v1/projects"),
    );
    expect(continued.raw.startsWith("HTTP/1.1 100 Continue\r\n\r\n")).toBe(true);
    const [created] = parseAnswers(continued.raw.slice("HTTP/1.1 100 Continue\r\n\r\n".length));
    expect(created?.status, created?.body).toBe(201);
  });

  test("a HEAD or OPTIONS request and an unknown method of a known route are 405 problem answers with Allow", async () => {
    for (const method of ["HEAD", "OPTIONS", "PUT", "DELETE"]) {
      const [answer] = parseAnswers(
        (await sendRaw(port, `${method} /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).raw,
      );
      expect(answer?.status, method).toBe(405);
      expect(answer?.headers.allow, method).toBe("GET");
      expect(answer?.headers["content-type"]).toMatch(/^application\/problem\+json/);
    }
  });
});

describe("a request that times out", () => {
  test("is answered 408 request_timeout as problem+json and closed", async () => {
    // Node raises ERR_HTTP_REQUEST_TIMEOUT after `requestTimeout` (5 minutes by default); the handler is given
    // that error on a real connection rather than waiting for it.
    const logged: unknown[] = [];
    const log = { info: (line: unknown) => logged.push(line) } as never;
    const handle = createClientErrorHandler(() => log);
    const server = createServer((socket: Socket) => {
      handle(Object.assign(new Error("request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }), socket);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { raw, closed } = await sendRaw((server.address() as AddressInfo).port, "GET / HTTP/1.1\r\n");
      expect(closed).toBe(true);
      const [answer] = parseAnswers(raw);
      expectProblemAnswer(answer, 408, "request_timeout");
      expect(logged).toEqual([
        {
          event: "client_error",
          status: 408,
          code: "request_timeout",
          parserCode: "ERR_HTTP_REQUEST_TIMEOUT",
        },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
