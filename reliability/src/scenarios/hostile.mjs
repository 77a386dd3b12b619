// @ts-check
// Hostile requests: a real hub process, logging at trace, gets thousands of requests generated from its own
// /openapi.json (schema-valid ones with a canary in every string, then malformed variants, under every kind of
// credential) and a list of malformed HTTP written on raw sockets. No answer may be a 5xx, every error must be
// problem+json with a catalogue code, and no content canary or credential may reach the log.
import { Agent } from "node:http";
import { join } from "node:path";
import { emptyTally, isCatalogueProblem, judge, scanLog, sendHostile } from "../lib/hostile-judge.mjs";
import { CREDENTIAL_KINDS, hostileRequests, operationsOf, VARIANT_KINDS } from "../lib/hostile-requests.mjs";
import { setUpHostile } from "../lib/hostile-setup.mjs";
import { ADMIN_TOKEN as ADMIN, call } from "../lib/http.mjs";
import { startHubProcess } from "../lib/hub-process.mjs";
import { malformedCases, onlyAnswer, sendRaw } from "../lib/malformed-http.mjs";
import { count } from "../lib/stats.mjs";

const CONCURRENCY = 8;
/** The scenario measures answers, not the rate limiter: the highest limit KXM_RATE_LIMIT takes. */
const RATE_LIMIT = "1000000";

/** @type {import("../scenarios.mjs").Scenario} */
export default {
  name: "hostile-requests",
  title: "Hostile requests",
  order: 10,
  async run({ short, seed, scratch, progress }) {
    const wanted = short ? 2_000 : 10_000;
    const hub = await startHubProcess({
      dbPath: join(scratch, "kxm.db"),
      adminToken: ADMIN,
      env: { KXM_LOG_LEVEL: "trace", KXM_RATE_LIMIT: RATE_LIMIT },
    });
    let stopped = false;
    try {
      const openapi = (await call(hub.url, "GET", "/openapi.json")).json;
      const { setup, secrets } = await setUpHostile(
        (method, path, token, body) =>
          call(hub.url, method, path, { token, ...(body === undefined ? {} : { body }) }),
        ADMIN,
      );
      const requests = hostileRequests(openapi, setup, { seed, count: wanted });
      const operations = operationsOf(openapi).length;
      progress(`${count(requests.length)} requests generated from ${operations} operations`);

      const tally = emptyTally();
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const hostile = /** @type {import("../lib/hostile-requests.mjs").HostileRequest} */ (
            requests[next++]
          );
          judge(tally, hostile, await sendHostile(hub.url, hostile, agent));
          if (tally.sent % 1_000 === 0) progress(`${count(tally.sent)} of ${count(requests.length)} sent`);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (performance.now() - started) / 1000;
      agent.destroy();

      const port = Number(new URL(hub.url).port);
      const canary = `CANARY-0-raw${seed.toString(36)}`;
      const cases = malformedCases(canary, ADMIN);
      /** @type {string[]} */
      const rawFailures = [];
      for (const malformed of cases) {
        const { raw, closed } = await sendRaw(port, malformed.bytes);
        const answer = onlyAnswer(raw);
        const problem = answer === undefined ? undefined : safeJson(answer.body);
        const fine =
          closed &&
          answer !== undefined &&
          answer.status === malformed.status &&
          problem?.code === malformed.code &&
          answer.headers.connection === "close" &&
          !answer.body.includes(canary) &&
          isCatalogueProblem({
            status: answer.status,
            contentType: answer.headers["content-type"] ?? "",
            body: answer.body,
          });
        if (!fine)
          rawFailures.push(
            `${malformed.name}: ${closed ? "" : "not closed, "}${raw.slice(0, 80).replace(/\r\n/g, " | ")}`,
          );
      }
      const health = await call(hub.url, "GET", "/v1/health");
      await hub.stop();
      stopped = true;
      const scanned = scanLog(hub.log(), [...secrets, canary]);

      const byVariant = VARIANT_KINDS.map((v) => `${v} ${count(tally.byVariant[v] ?? 0)}`).join(", ");
      const byCredential = CREDENTIAL_KINDS.map((c) => `${c} ${count(tally.byCredential[c] ?? 0)}`).join(
        ", ",
      );
      return {
        tried: `${count(tally.sent)} requests generated from the hub's own /openapi.json (${operations} operations × ${VARIANT_KINDS.length} variants, each under one of ${CREDENTIAL_KINDS.length} kinds of credential in rotation, seed ${seed}) sent ${CONCURRENCY} at a time to a hub process logging at trace, in ${seconds.toFixed(1)} s; then ${cases.length} malformed HTTP requests written on raw sockets.`,
        figures: [
          {
            label: "generated requests sent",
            value: count(tally.sent),
            goal: `at least ${count(wanted)}`,
            held: tally.sent >= wanted,
          },
          {
            label: "5xx answers",
            value: count(tally.serverErrors),
            goal: "0",
            held: tally.serverErrors === 0,
          },
          {
            label: "error answers not problem+json with a catalogue code",
            value: count(tally.notProblem),
            goal: "0",
            held: tally.notProblem === 0,
          },
          {
            label: "connections closed without an answer",
            value: count(tally.noAnswer),
            goal: "0",
            held: tally.noAnswer === 0,
          },
          {
            label: "error answers repeating a content canary",
            value: count(tally.echoed),
            goal: "0",
            held: tally.echoed === 0,
          },
          {
            label: "content canaries in the hub's log",
            value: count(scanned.contentCanaries),
            goal: "0",
            held: scanned.contentCanaries === 0,
          },
          {
            label: "credentials in the hub's log",
            value: count(scanned.credentials),
            goal: "0",
            held: scanned.credentials === 0,
          },
          {
            label: "raw-socket malformed requests answered with problem+json and closed",
            value: `${count(cases.length - rawFailures.length)} of ${count(cases.length)}`,
            goal: "all",
            held: rawFailures.length === 0,
          },
          {
            label: "2xx answers (the valid variants reach the routes)",
            value: count(tally.success),
            goal: "more than 0",
            held: tally.success > 0,
          },
          {
            label: "hub still answering afterwards",
            value: String(health.status),
            goal: "200",
            held: health.status === 200,
          },
        ],
        notes: [
          `Requests per variant: ${byVariant}.`,
          `Requests per credential: ${byCredential}.`,
          `KXM_RATE_LIMIT=${RATE_LIMIT} for this scenario, so that answers are the routes' own and not 429s; KXM_LOG_LEVEL=trace, the most verbose level, so that a leak would show.`,
          `${count(scanned.idCanaries)} distinct identifier canaries (path parameters, project, run, agent and operator ids) are in the log: the hub logs ids on purpose; content canaries are every other string.`,
          ...tally.examples.map((example) => `Failure: ${example}`),
          ...rawFailures.map((failure) => `Raw-socket failure: ${failure}`),
          ...scanned.examples.map((found) => `Logged canary: ${found}`),
        ],
      };
    } finally {
      if (!stopped) await hub.stop("SIGKILL");
    }
  },
};

/** @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
