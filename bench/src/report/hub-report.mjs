// @ts-check
// The hub section: each route's round trips and server time beside the bare route, and how they were measured.
import { count, ms, ratio, table } from "./format.mjs";

/** @param {any} hub */
export function hubReport(hub) {
  /** @param {any} c */
  const latency = (c) => `${ms(c.mean)} / ${ms(c.p50)} / ${ms(c.p90)} / ${ms(c.p99)}`;
  /** @param {any} c */
  const failures = (c) => c.non2xx + c.errors + c.timeouts;
  /** @param {string} label @param {any} c @param {any} server its own time per request, and its arbiter calls' */
  const route = (label, c, server) => [
    label,
    latency(c),
    count(Math.round(c.requestsPerSecond)),
    String(failures(c)),
    `${ms(server.p50)} / ${ms(server.p99)}`,
    ms(server.arbiter.p50),
    ratio(server.p50 / server.arbiter.p50),
  ];
  const bare = hub.bareRoute;
  /** @param {string} label @param {any} c @param {any} b @param {any} inProcess */
  const versus = (label, c, b, inProcess) => [
    label,
    ratio(c.inHub.p50 / b.inServer.p50),
    ratio(c.p50 / b.p50),
    ms(inProcess.p50),
  ];
  return [
    table(
      [
        "route",
        "round trip mean / p50 / p90 / p99 ms",
        "requests/s",
        "failed",
        "in the server p50 / p99 ms",
        "its arbiter calls p50 ms",
        "in the server / arbiter",
      ],
      [
        [
          "Fastify hello (yardstick)",
          latency(hub.hello),
          count(Math.round(hub.hello.requestsPerSecond)),
          String(failures(hub.hello)),
          "",
          "",
          "",
        ],
        route("hub /context, long tasks", hub.contextLong, hub.contextLong.inHub),
        route("bare route, long tasks", bare.contextLong, bare.contextLong.inServer),
        route("hub /context, short tasks", hub.contextShort, hub.contextShort.inHub),
        route("bare route, short tasks", bare.contextShort, bare.contextShort.inServer),
        route("hub /recall", hub.recall, hub.recall.inHub),
        route("bare route, recall", bare.recall, bare.recall.inServer),
      ],
      ["l", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    table(
      ["route", "hub / bare route, in the server", "hub / bare route, round trip", "in-process call p50 ms"],
      [
        versus("/context, long tasks", hub.contextLong, bare.contextLong, hub.inProcess.long),
        versus("/context, short tasks", hub.contextShort, bare.contextShort, hub.inProcess.short),
        versus("/recall", hub.recall, bare.recall, hub.inProcess.recall),
      ],
      ["l", "r", "r", "r"],
    ),
    "",
    `${count(hub.size)} journal records in one project; autocannon with 1 connection, in a process of its own, for ` +
      `${hub.bursts} bursts of ${hub.burstSeconds} s per route and server, the hub and the bare route taking turns ` +
      "(each going first in every other pair). " +
      "Round trips are each response's own duration on autocannon's side. In the server: for the hub, the " +
      "`durationMs` of its request log, from the request's arrival to its last byte handed to the socket; for the " +
      "bare route (a Fastify route answering the same requests from an index over the same items, with no auth, " +
      "validation, rate limit, log or pool lookup), the same Fastify clock; both in 0.1 ms steps. Its arbiter " +
      "calls: the PoolIndex assemble or recall call inside those same requests. In-process: the same calls without " +
      `HTTP, a minute before; with JSON.stringify of the packet, long tasks take ${ms(hub.inProcess.longWithJson.p50)} ms ` +
      "at p50. Ratios compare p50s.",
  ].join("\n");
}
