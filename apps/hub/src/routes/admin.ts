import { sep } from "node:path";
import { KxmError } from "@kxm/contract";
import type { RouteHandler } from "./types.js";

/** Liveness and version; needs no credential. */
export const health: RouteHandler<"health"> = async ({ hub }) => ({ status: "ok", version: hub.version });

/**
 * Registers a project. Its checkout is where its own authored memory and promoted skills are read from, so it must
 * be the checkout itself: an absolute path (checked by the store) that is not inside a `.kxm` folder.
 */
export const createProject: RouteHandler<"createProject"> = async ({ body, hub, log }) => {
  if (body.checkoutRoot?.split(/[\\/]/).includes(".kxm")) {
    throw new KxmError(
      "invalid_request",
      `checkoutRoot: must be the project's checkout, not a folder inside its .kxm${sep} folder`,
    );
  }
  const project = await hub.store.createProject(
    { id: body.id, ...(body.checkoutRoot === undefined ? {} : { checkoutRoot: body.checkoutRoot }) },
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
