// @ts-check
// Runs autocannon in a process of its own (so that the load generator does not share the server's event loop)
// and reports each response's duration and the counts of requests and failures. The parent sends { url,
// connections, durationSeconds, requests }.
// Latencies are taken from each response's own duration (autocannon's `response` event, nanosecond clock): its
// histogram keeps whole milliseconds, which turns a 0.09 ms answer into 0 and a 4.6 ms one into 4.
import autocannon from "autocannon";

process.on("disconnect", () => process.exit(1));
process.once("message", async (/** @type {any} */ job) => {
  /** @type {number[]} */
  const durations = [];
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.durationSeconds,
    requests: job.requests,
  });
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) durations.push(responseTime);
  });
  const result = await instance;
  // The raw durations, so that the parent can pool the bursts of one route before taking percentiles.
  process.send?.(
    {
      durations,
      total: result.requests.total,
      // How long the burst really ran (autocannon stops at the first response after its duration).
      seconds: result.duration,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    },
    () => process.exit(0),
  );
});
