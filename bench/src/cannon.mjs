// @ts-check
// Runs autocannon in a process of its own (so that the load generator does not share the server's event loop)
// and reports each response's duration and the counts of requests and failures. The parent sends { urls,
// connections (per URL), durationSeconds, requests }; several URLs are driven at once, one autocannon instance
// each, in this one process. It says { started: true } as the instances start, then sends the figures.
// Latencies are taken from each response's own duration (autocannon's `response` event, nanosecond clock): its
// histogram keeps whole milliseconds, which turns a 0.09 ms answer into 0 and a 4.6 ms one into 4.
import autocannon from "autocannon";
import { COUNTER } from "./load.mjs";

/** The requests sent so far whose body holds {@link COUNTER}, in this process. */
let sent = 0;

/**
 * A request whose body holds {@link COUNTER} is rebuilt for every send with the next number in its place (what
 * a burst of writes needs to give each one a key of its own); any other is built once, as autocannon does.
 * @param {{ body?: string }} request
 */
function withCounter(request) {
  const { body } = request;
  if (body === undefined || !body.includes(COUNTER)) return request;
  return {
    ...request,
    setupRequest: (/** @type {any} */ req) => ({
      ...req,
      body: body.replaceAll(COUNTER, String(++sent)),
    }),
  };
}

process.on("disconnect", () => process.exit(1));
process.once("message", async (/** @type {any} */ job) => {
  /** @type {number[]} */
  const durations = [];
  process.send?.({ started: true });
  const cpuBefore = process.cpuUsage();
  const results = await Promise.all(
    job.urls.map((/** @type {string} */ url) => {
      const instance = autocannon({
        url,
        connections: job.connections,
        duration: job.durationSeconds,
        requests: job.requests.map((/** @type {any} */ request) => withCounter(request)),
      });
      instance.on("response", (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) durations.push(responseTime);
      });
      return instance;
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  /** @param {string} key */
  const sum = (key) => results.reduce((n, result) => n + result[key], 0);
  // The raw durations, so that the parent can pool the bursts of one route before taking percentiles.
  process.send?.(
    {
      durations,
      total: results.reduce((n, result) => n + result.requests.total, 0),
      // How long the burst really ran (autocannon stops at the first response after its duration).
      seconds: Math.max(...results.map((result) => result.duration)),
      non2xx: sum("non2xx"),
      errors: sum("errors"),
      timeouts: sum("timeouts"),
      // This process's own CPU time while it drove the load (user + system).
      cpuMs: (cpu.user + cpu.system) / 1000,
    },
    () => process.exit(0),
  );
});
