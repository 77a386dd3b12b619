// Catch-up ahead of requests: on PostgreSQL a hub hears every change another hub commits and applies it to its
// pools at once, so the next request finds them current. Requests still catch up themselves (the feed is the
// truth: a notification can be late, and is lost while the listening connection is down).
import type { KxmStore } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import { describeError } from "./logging.js";
import type { PoolCache } from "./pool-cache.js";

/**
 * Follows the store's change notifications when it has them (PostgreSQL), syncing the pools on each, and on every
 * (re)connection of the listener, when changes may have been missed. Resolves to a function that stops it, or
 * undefined for a store that cannot notify (SQLite).
 */
export async function followChanges(
  store: KxmStore,
  pools: PoolCache,
  log: FastifyBaseLogger,
): Promise<(() => Promise<void>) | undefined> {
  if (store.watchChanges === undefined) return undefined;
  let connections = 0;
  const sync = (reason: string) => {
    pools.sync().catch((error: unknown) => {
      log.warn({ event: "pools_catch_up_failed", reason, error: describeError(error) });
    });
  };
  return store.watchChanges({
    changed: () => sync("notified"),
    connected: () => {
      connections += 1;
      log.info({ event: "change_listener_connected", reconnected: connections > 1 });
      // Notifications sent while the listener was down are gone: read the feed now.
      if (connections > 1) sync("reconnected");
    },
  });
}
