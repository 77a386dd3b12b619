// @ts-check
// Sending generated hostile requests to a hub and judging its answers: a 5xx, an error that is not problem+json
// with a catalogue code, an error that repeats a content canary, and what a log holds that it must not.
import { request as httpRequest } from "node:http";
import { ERROR_CATALOGUE } from "@kxm/contract";
import { CONTENT_CANARY, ID_CANARY } from "./hostile-requests.mjs";

/**
 * @typedef {object} Answer
 * @property {number} status
 * @property {string} contentType
 * @property {string} body
 */

/**
 * Sends one request over `agent` exactly as generated (path, headers and body bytes), and reads the answer.
 * A connection the hub closes without an answer resolves with status 0.
 * @param {string} base the hub's URL
 * @param {import("./hostile-requests.mjs").HostileRequest} hostile
 * @param {import("node:http").Agent} agent
 * @returns {Promise<Answer>}
 */
export function sendHostile(base, hostile, agent) {
  const url = new URL(base);
  return new Promise((resolve) => {
    /** @type {Record<string, string>} */
    const headers = { ...hostile.headers };
    if (hostile.body !== undefined) headers["content-length"] = String(Buffer.byteLength(hostile.body));
    let sent;
    try {
      sent = httpRequest(
        { host: url.hostname, port: url.port, method: hostile.method, path: hostile.path, headers, agent },
        (response) => {
          const chunks = /** @type {Buffer[]} */ ([]);
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              contentType: String(response.headers["content-type"] ?? ""),
              body: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          response.on("error", () => resolve({ status: 0, contentType: "", body: "" }));
        },
      );
    } catch {
      // Node refuses to send a path it considers unescaped: the generator should never make one.
      resolve({ status: -1, contentType: "", body: "" });
      return;
    }
    sent.on("error", () => resolve({ status: 0, contentType: "", body: "" }));
    sent.end(hostile.body);
  });
}

/**
 * Whether `answer` is an error answered as the catalogue says: `application/problem+json`, a JSON body whose
 * `code` is a catalogue code with this status, and `status` and `title` matching it.
 * @param {Answer} answer
 */
export function isCatalogueProblem(answer) {
  if (!answer.contentType.startsWith("application/problem+json")) return false;
  let problem;
  try {
    problem = JSON.parse(answer.body);
  } catch {
    return false;
  }
  const entry = Object.hasOwn(ERROR_CATALOGUE, problem?.code)
    ? ERROR_CATALOGUE[/** @type {keyof typeof ERROR_CATALOGUE} */ (problem.code)]
    : undefined;
  return (
    entry !== undefined &&
    entry.status === answer.status &&
    problem.status === answer.status &&
    problem.title === entry.title
  );
}

/**
 * @typedef {object} Tally
 * @property {number} sent
 * @property {Record<string, number>} byVariant
 * @property {Record<string, number>} byCredential
 * @property {number} success 2xx answers
 * @property {number} serverErrors 5xx answers
 * @property {number} notProblem error answers that are not problem+json with a catalogue code
 * @property {number} echoed error answers that repeat a content canary
 * @property {number} noAnswer connections closed without an answer
 * @property {string[]} examples the first few failures, for the report
 */

/** @returns {Tally} */
export function emptyTally() {
  return {
    sent: 0,
    byVariant: {},
    byCredential: {},
    success: 0,
    serverErrors: 0,
    notProblem: 0,
    echoed: 0,
    noAnswer: 0,
    examples: [],
  };
}

/**
 * Counts one answer into `tally`.
 * @param {Tally} tally
 * @param {import("./hostile-requests.mjs").HostileRequest} hostile
 * @param {Answer} answer
 */
export function judge(tally, hostile, answer) {
  tally.sent += 1;
  tally.byVariant[hostile.variant] = (tally.byVariant[hostile.variant] ?? 0) + 1;
  tally.byCredential[hostile.credential] = (tally.byCredential[hostile.credential] ?? 0) + 1;
  const what = `#${hostile.index} ${hostile.operationId} ${hostile.variant} as ${hostile.credential}`;
  const example = (/** @type {string} */ failure) => {
    if (tally.examples.length < 10) tally.examples.push(`${what}: ${failure}`);
  };
  if (answer.status <= 0) {
    tally.noAnswer += 1;
    example("no answer");
    return;
  }
  if (answer.status >= 200 && answer.status < 300) tally.success += 1;
  if (answer.status >= 500) {
    tally.serverErrors += 1;
    example(`${answer.status} ${answer.body.slice(0, 120)}`);
  }
  if (answer.status >= 400) {
    if (!isCatalogueProblem(answer)) {
      tally.notProblem += 1;
      example(`not a catalogue problem: ${answer.status} ${answer.contentType} ${answer.body.slice(0, 80)}`);
    }
    if (new RegExp(CONTENT_CANARY.source, "i").test(answer.body)) {
      tally.echoed += 1;
      example(`the error repeats a canary: ${answer.body.slice(0, 120)}`);
    }
  }
}

/**
 * What a log holds that it must not: content canaries (distinct), and the credentials given; identifier canaries
 * are counted apart, since the hub logs ids on purpose.
 * @param {string} log
 * @param {readonly string[]} secrets credentials that must never be logged
 */
export function scanLog(log, secrets) {
  const content = new Set(log.match(CONTENT_CANARY) ?? []);
  const ids = new Set(log.match(ID_CANARY) ?? []);
  const credentials = secrets.filter((secret) => secret.length >= 8 && log.includes(secret)).length;
  return {
    contentCanaries: content.size,
    idCanaries: ids.size,
    credentials,
    examples: [...content].slice(0, 5),
  };
}
