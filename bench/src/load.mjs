// @ts-check
// The load generator's side, shared by the hub sections: autocannon in a process of its own (cannon.mjs), driven in
// bursts, and the bursts' figures pooled into one route's.
import { fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile } from "./measure.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** In a request's body, what the load generator replaces with the number of each request it sends. */
export const COUNTER = "__N__";

/** A route's turn under load: the sides being compared alternate in bursts of this many seconds. */
export const BURST_SECONDS = 2;

/** Long enough for a request that was in flight when a burst stopped to be answered (and logged). */
export const idle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * One burst of autocannon against one server, or against several at once from the one process, `connections`
 * spread evenly across them (1 per server by default). `onStart` is called as autocannon starts, after its process
 * has loaded, so that what is sampled around the burst covers the load and not the fork.
 * @param {string | readonly string[]} urls
 * @param {readonly object[]} requests
 * @param {number} durationSeconds
 * @param {{ connections?: number, onStart?: () => void }} [options]
 * @returns {Promise<any>}
 */
export function cannon(urls, requests, durationSeconds, options = {}) {
  const targets = typeof urls === "string" ? [urls] : urls;
  const connections = options.connections ?? targets.length;
  if (connections % targets.length !== 0)
    throw new Error(`${connections} connections cannot be spread evenly`);
  return new Promise((resolve, reject) => {
    const child = fork(join(here, "cannon.mjs"), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    /** @type {unknown} */
    let result;
    child.on("message", (/** @type {any} */ message) => {
      if (message.started === true) options.onStart?.();
      else result = message;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      result === undefined ? reject(new Error(`autocannon exited with ${code}`)) : resolve(result),
    );
    child.send({ urls: targets, connections: connections / targets.length, durationSeconds, requests });
  });
}

/**
 * One route's figures from the bursts autocannon ran against it: percentiles over every response of every burst.
 * @param {readonly any[]} runs
 */
export function pooled(runs) {
  const durations = runs.flatMap((run) => run.durations);
  /** @param {string} key */
  const sum = (key) => runs.reduce((n, run) => n + run[key], 0);
  return {
    p50: percentile(durations, 0.5),
    p90: percentile(durations, 0.9),
    p99: percentile(durations, 0.99),
    mean: durations.reduce((n, ms) => n + ms, 0) / durations.length,
    requestsPerSecond: sum("total") / sum("seconds"),
    total: sum("total"),
    non2xx: sum("non2xx"),
    errors: sum("errors"),
    timeouts: sum("timeouts"),
  };
}
