// @ts-check
// Runs autocannon in a process of its own (so that the load generator does not share the server's event loop)
// and reports its latency and throughput. The parent sends { url, connections, durationSeconds, requests }.
import autocannon from "autocannon";

process.on("disconnect", () => process.exit(1));
process.once("message", async (/** @type {any} */ job) => {
  const result = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.durationSeconds,
    requests: job.requests,
  });
  const { latency, requests } = result;
  process.send?.(
    {
      p50: latency.p50,
      p90: latency.p90,
      p99: latency.p99,
      mean: latency.average,
      requestsPerSecond: requests.average,
      total: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    },
    () => process.exit(0),
  );
});
