// Revocation and forgetting (decision 0017): operator routes, and one project route that names the authored items
// withheld (ids and reasons only). Each write goes to the store, which appends a
// `project` change, so every hub on the database rebuilds the project's pools before its next read.
import { KxmError } from "@kxm/contract";
import { actorOf } from "../auth.js";
import { freshPool } from "./context.js";
import type { RouteHandler } from "./types.js";

function requireCaller<T>(caller: T | undefined): T {
  if (caller === undefined)
    throw new KxmError("invalid_auth", "the credential is missing, unknown or revoked");
  return caller;
}

/** Revokes a target; logged by target kind and ids, never the value or the reason (they may name a person). */
export const revoke: RouteHandler<"revoke"> = async ({ params, body, caller, hub, log }) => {
  const by = actorOf(requireCaller(caller));
  await hub.project(params.project);
  const revocation = await hub.store.revoke(
    { project: params.project, target: body.target, value: body.value, reason: body.reason, revokedBy: by },
    hub.now(),
  );
  log.info({
    event: "revoked",
    project: params.project,
    revocationId: revocation.id,
    target: body.target,
    by,
  });
  return { revocation };
};

export const listRevocations: RouteHandler<"listRevocations"> = async ({ params, hub }) => {
  await hub.project(params.project);
  return { revocations: await hub.store.listRevocations(params.project) };
};

export const unrevoke: RouteHandler<"unrevoke"> = async ({ params, body, caller, hub, log }) => {
  const by = actorOf(requireCaller(caller));
  await hub.project(params.project);
  const revocation = await hub.store.liftRevocation(
    { project: params.project, id: params.revocationId, reason: body.reason, liftedBy: by },
    hub.now(),
  );
  log.info({ event: "revocation_lifted", project: params.project, revocationId: revocation.id, by });
  return { revocation };
};

/**
 * Forgets an item. A stored item or journal entry is deleted by the store; an id that names none but names an
 * authored fact or skill of the checkout (served or withheld) is hashed from the summary the hub serves, and
 * withheld while the tombstone is active. Logs ids, never the content.
 */
export const forget: RouteHandler<"forget"> = async ({ params, body, caller, hub, log }) => {
  const by = actorOf(requireCaller(caller));
  const pool = await hub.pool(params.project);
  await pool.refreshAuthored();
  const authored = pool.authoredItem(params.itemId);
  const { tombstone, deleted } = await hub.store.forget(
    {
      project: params.project,
      itemId: params.itemId,
      reason: body.reason,
      forgottenBy: by,
      ...(authored === undefined ? {} : { authoredSummary: authored.summary }),
    },
    hub.now(),
  );
  log.info({
    event: "forgotten",
    project: params.project,
    tombstoneId: tombstone.id,
    itemId: tombstone.itemId,
    kind: tombstone.kind,
    deleted: deleted.length,
    by,
  });
  return { tombstone, deleted };
};

export const listTombstones: RouteHandler<"listTombstones"> = async ({ params, hub }) => {
  await hub.project(params.project);
  return { tombstones: await hub.store.listTombstones(params.project) };
};

export const unforget: RouteHandler<"unforget"> = async ({ params, body, caller, hub, log }) => {
  const by = actorOf(requireCaller(caller));
  await hub.project(params.project);
  const tombstone = await hub.store.liftTombstone(
    { project: params.project, id: params.tombstoneId, reason: body.reason, liftedBy: by },
    hub.now(),
  );
  log.info({ event: "tombstone_lifted", project: params.project, tombstoneId: tombstone.id, by });
  return { tombstone };
};

/**
 * The checkout's authored facts and skills the pool withholds (revoked, forgotten, expired, a failed check), by id
 * with the reason, in id order (`withheldItems` sorts): a project route, since a run's dispatch and the CLI's brief
 * and sync must leave out what every packet leaves out. Ids and reasons only, never a summary or a store item.
 */
export const listWithheld: RouteHandler<"listWithheld"> = async ({ params, hub }) => {
  const pool = await freshPool(hub, params.project);
  const items = pool
    .withheldItems()
    .filter(({ item }) => pool.authoredItem(item.id) !== undefined)
    .map(({ item, reason }) => ({ id: item.id, reason }));
  return { items };
};
