// @ts-check
// Several hub processes on one database (a SQLite file or a PostgreSQL database): starting them, and the checks a
// packet read from each must pass.
import { call } from "./http.mjs";
import { startHubProcess } from "./hub-process.mjs";

/**
 * Starts `count` hub processes on `dbPath`, or on the PostgreSQL database at `databaseUrl`, one after another (each
 * applies the migrations the first made), logging nothing unless `logLevel` says otherwise. On PostgreSQL hub `n`
 * (from 0) names its connections `kxm-hub-<n>` (`application_name`), so that `pg_stat_activity` tells them apart.
 * @param {number} count
 * @param {({ dbPath: string } | { databaseUrl: string }) & { adminToken: string, logLevel?: string }} options
 * @returns {Promise<import("./hub-process.mjs").HubProcess[]>}
 */
export async function startHubs(count, options) {
  /** @type {import("./hub-process.mjs").HubProcess[]} */
  const hubs = [];
  try {
    for (let n = 0; n < count; n += 1) {
      const env = { KXM_LOG_LEVEL: options.logLevel ?? "silent", KXM_RATE_LIMIT: "100000" };
      hubs.push(
        await startHubProcess(
          "databaseUrl" in options
            ? {
                databaseUrl: namedConnections(options.databaseUrl, `kxm-hub-${n}`),
                adminToken: options.adminToken,
                env,
              }
            : { dbPath: options.dbPath, adminToken: options.adminToken, env },
        ),
      );
    }
  } catch (error) {
    await Promise.all(hubs.map((hub) => hub.stop()));
    throw error;
  }
  return hubs;
}

/**
 * `url` with its connections named `name` (`application_name`, which postgres.js takes from the query).
 * @param {string} url
 * @param {string} name
 */
export function namedConnections(url, name) {
  const named = new URL(url);
  named.searchParams.set("application_name", name);
  return named.href;
}

/**
 * Every whole JSON line a hub process logged so far, parsed, in order.
 * @param {{ log: () => string }} hub
 * @returns {Record<string, unknown>[]}
 */
export function logEvents(hub) {
  /** @type {Record<string, unknown>[]} */
  const events = [];
  for (const line of hub.log().split("\n")) {
    try {
      const parsed = JSON.parse(line);
      if (typeof parsed === "object" && parsed !== null) events.push(parsed);
    } catch {
      // not a whole JSON line
    }
  }
  return events;
}

/**
 * The `durationMs` of every `pools_caught_up` line (logged at debug level) a hub process wrote: how long each
 * catch-up with the change feed took inside the hub.
 * @param {{ log: () => string }} hub
 * @returns {number[]}
 */
export function catchUpDurations(hub) {
  return logEvents(hub)
    .filter((event) => event.event === "pools_caught_up" && typeof event.durationMs === "number")
    .map((event) => /** @type {number} */ (event.durationMs));
}

/** The packet sections that hold items. */
const SECTIONS = ["contradictions", "currentState", "knowledge", "evidence", "episodes", "skills"];

/**
 * The state keys a packet shows more than one current value for without flagging them: a key whose current items
 * are not all in the packet's `contradictions` section. Empty for a sound packet.
 * @param {any} packet the `packet` of a context answer
 * @returns {string[]}
 */
export function unflaggedDoubleCurrent(packet) {
  /** @type {Map<string, Set<string>>} */
  const current = new Map();
  const flagged = new Set((packet.contradictions ?? []).map((/** @type {{ id: string }} */ item) => item.id));
  for (const section of SECTIONS) {
    for (const item of packet[section] ?? []) {
      if (item.kind !== "state" || item.status !== "current" || typeof item.stateKey !== "string") continue;
      const ids = current.get(item.stateKey) ?? new Set();
      ids.add(item.id);
      current.set(item.stateKey, ids);
    }
  }
  return [...current]
    .filter(([, ids]) => ids.size > 1 && ![...ids].every((id) => flagged.has(id)))
    .map(([key]) => key);
}

/**
 * The current items of `key` a packet shows, by id.
 * @param {any} packet
 * @param {string} key
 * @returns {string[]}
 */
export function currentIds(packet, key) {
  /** @type {Set<string>} */
  const ids = new Set();
  for (const section of SECTIONS) {
    for (const item of packet[section] ?? []) {
      if (item.kind === "state" && item.status === "current" && item.stateKey === key) ids.add(item.id);
    }
  }
  return [...ids].sort();
}

/**
 * Asks every hub for the same packet, at once. Throws on an answer other than 200.
 * @param {readonly { url: string }[]} hubs
 * @param {string} project
 * @param {string} token
 * @param {{ role: string, task: string, budgetTokens?: number }} request
 * @returns {Promise<{ text: string, json: any }[]>}
 */
export async function packetsFromEvery(hubs, project, token, request) {
  return Promise.all(
    hubs.map(async (hub) => {
      const answer = await call(hub.url, "POST", `/v1/projects/${project}/context`, { token, body: request });
      if (answer.status !== 200) throw new Error(`context answered ${answer.status}: ${answer.text}`);
      return { text: answer.text, json: answer.json };
    }),
  );
}

/**
 * A call that must answer `status`; its JSON otherwise.
 * @param {string} base
 * @param {string} method
 * @param {string} path
 * @param {number} status
 * @param {{ token?: string, body?: unknown }} options
 */
export async function expectCall(base, method, path, status, options) {
  const answer = await call(base, method, path, options);
  if (answer.status !== status) {
    throw new Error(`${method} ${path} answered ${answer.status}, not ${status}: ${answer.text}`);
  }
  return answer.json;
}
