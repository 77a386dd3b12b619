import { stat } from "node:fs/promises";
import { isAbsolute, sep } from "node:path";
import { KxmError } from "@kxm/contract";
import { KXM_DIR } from "@kxm/memory-git/layout";
import type { RouteHandler } from "./types.js";

/** The longest checkout root the API takes, in characters (PATH_MAX on Linux). */
const CHECKOUT_ROOT_MAX = 4096;

/**
 * A checkout root as the API takes it: an absolute path, at most 4,096 characters, no NUL, not inside a `.kxm`
 * folder, naming a folder that exists on the hub's machine now (the hub reads the project's memory and skills
 * from it). Each refusal is `invalid_request` naming the rule, never the path.
 */
async function checkoutRoot(value: string): Promise<string> {
  if (value.length > CHECKOUT_ROOT_MAX || value.includes("\0") || !isAbsolute(value)) {
    throw new KxmError(
      "invalid_request",
      `checkoutRoot: must be an absolute path of at most ${CHECKOUT_ROOT_MAX} characters`,
    );
  }
  if (value.split(/[\\/]/).includes(KXM_DIR)) {
    throw new KxmError(
      "invalid_request",
      `checkoutRoot: must be the project's checkout, not a folder inside its .kxm${sep} folder`,
    );
  }
  const isFolder = await stat(value).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isFolder) {
    throw new KxmError("invalid_request", "checkoutRoot: must be an existing folder on the hub's machine");
  }
  return value;
}

/** Liveness and version; needs no credential. */
export const health: RouteHandler<"health"> = async ({ hub }) => ({ status: "ok", version: hub.version });

/**
 * Registers a project. Its checkout is where its own authored memory and promoted skills are read from, so it must
 * be the checkout itself: an absolute path (checked by the store) that is not inside a `.kxm` folder.
 */
export const createProject: RouteHandler<"createProject"> = async ({ body, hub, log }) => {
  const root = body.checkoutRoot === undefined ? undefined : await checkoutRoot(body.checkoutRoot);
  const project = await hub.store.createProject(
    { id: body.id, ...(root === undefined ? {} : { checkoutRoot: root }) },
    hub.now(),
  );
  log.info({ event: "project_created", project: project.id, hasCheckout: project.checkoutRoot !== null });
  return { project };
};

export const listProjects: RouteHandler<"listProjects"> = async ({ hub }) => ({
  projects: await hub.store.listProjects(),
});

/** Creates an agent key; the key is in the answer only, never in the log. */
export const createAgentKey: RouteHandler<"createAgentKey"> = async ({ params, body, hub, log }) => {
  await hub.project(params.project);
  const created = await hub.store.createAgentKey(params.project, body.agentId, hub.now());
  log.info({ event: "agent_key_created", project: params.project, agentId: created.agentId });
  return { project: params.project, agentId: created.agentId, key: created.key };
};

export const revokeAgentKey: RouteHandler<"revokeAgentKey"> = async ({ params, hub, log }) => {
  await hub.project(params.project);
  const revoked = await hub.store.revokeAgentKey(params.project, params.agentId, hub.now());
  log.info({ event: "agent_key_revoked", project: params.project, agentId: params.agentId, revoked });
  return { revoked };
};

/** Changes a project's checkout root (checked as at registration); its pool reloads from the new checkout. */
export const updateProject: RouteHandler<"updateProject"> = async ({ params, body, hub, log }) => {
  const root = await checkoutRoot(body.checkoutRoot);
  // The pool is dropped through the change feed, in this hub and every other on the database.
  const project = await hub.store.updateProject(params.project, { checkoutRoot: root }, hub.now());
  log.info({ event: "project_updated", project: project.id });
  return { project };
};

/**
 * Removes a project: refused (409 `project_not_empty`) while it holds records or active agent keys, unless
 * `force=true`, which deletes them with it. Its pool is dropped (through the change feed, before any hub on the
 * database reads it again), so nothing of it is served from memory.
 */
export const removeProject: RouteHandler<"removeProject"> = async ({ params, query, hub, log }) => {
  const removed = await hub.store.removeProject(params.project, { force: query.force === "true" }, hub.now());
  log.info({ event: "project_removed", ...removed });
  return { removed };
};

export const listAgentKeys: RouteHandler<"listAgentKeys"> = async ({ params, hub }) => ({
  project: params.project,
  agents: await hub.store.listAgentKeys(params.project),
});

/** Replaces an agent's key; the new key is in the answer only, never in the log. */
export const rotateAgentKey: RouteHandler<"rotateAgentKey"> = async ({ params, hub, log }) => {
  const rotated = await hub.store.rotateAgentKey(params.project, params.agentId, hub.now());
  log.info({ event: "agent_key_rotated", project: params.project, agentId: rotated.agentId });
  return { project: params.project, agentId: rotated.agentId, key: rotated.key };
};

/** Creates a named operator's token; the token is in the answer only, never in the log. */
export const createOperator: RouteHandler<"createOperator"> = async ({ body, hub, log }) => {
  const created = await hub.store.createOperator(body.name, hub.now());
  log.info({ event: "operator_created", operator: created.name });
  return created;
};

export const listOperators: RouteHandler<"listOperators"> = async ({ hub }) => ({
  operators: await hub.store.listOperators(),
});

export const revokeOperator: RouteHandler<"revokeOperator"> = async ({ params, hub, log }) => {
  const revoked = await hub.store.revokeOperator(params.name, hub.now());
  log.info({ event: "operator_revoked", operator: params.name, revoked });
  return { revoked };
};
