// @ts-check
// Several hub processes on one SQLite file: starting them, and the checks a packet read from each must pass.
import { call } from "./http.mjs";
import { startHubProcess } from "./hub-process.mjs";

/**
 * Starts `count` hub processes on `dbPath`, one after another (each applies the migrations the first made), logging
 * nothing unless `logLevel` says otherwise.
 * @param {number} count
 * @param {{ dbPath: string, adminToken: string, logLevel?: string }} options
 * @returns {Promise<import("./hub-process.mjs").HubProcess[]>}
 */
export async function startHubs(count, options) {
  /** @type {import("./hub-process.mjs").HubProcess[]} */
  const hubs = [];
  try {
    for (let n = 0; n < count; n += 1) {
      hubs.push(
        await startHubProcess({
          dbPath: options.dbPath,
          adminToken: options.adminToken,
          env: { KXM_LOG_LEVEL: options.logLevel ?? "silent", KXM_RATE_LIMIT: "100000" },
        }),
      );
    }
  } catch (error) {
    await Promise.all(hubs.map((hub) => hub.stop()));
    throw error;
  }
  return hubs;
}

/**
 * The `durationMs` of every `pools_caught_up` line (logged at debug level) a hub process wrote: how long each
 * catch-up with the change feed took inside the hub.
 * @param {{ log: () => string }} hub
 * @returns {number[]}
 */
export function catchUpDurations(hub) {
  /** @type {number[]} */
  const durations = [];
  for (const line of hub.log().split("\n")) {
    if (!line.includes('"pools_caught_up"')) continue;
    try {
      const parsed = JSON.parse(line);
      if (typeof parsed.durationMs === "number") durations.push(parsed.durationMs);
    } catch {
      // not a whole JSON line
    }
  }
  return durations;
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
