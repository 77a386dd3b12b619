import { KxmError } from "@kxm/contract";
import { actorOf } from "../auth.js";
import { freshPool } from "./context.js";
import type { RouteHandler } from "./types.js";

/**
 * Proposes a state value. Origin follows the credential, never a name: an agent key proposes as `peer` (capped at
 * evidence by the store), the admin token as `human` under the name `kxm-admin`, an operator's token as `human`
 * under `operator:<name>`. `proposedBy` defaults to the
 * caller and must name it; a mismatch is refused and logged as a security alert (ids only).
 */
export const proposeState: RouteHandler<"proposeState"> = async ({ params, body, caller, hub, log }) => {
  if (caller === undefined)
    throw new KxmError("invalid_auth", "the credential is missing, unknown or revoked");
  const actor = actorOf(caller);
  if (body.proposedBy !== undefined && body.proposedBy !== actor) {
    hub.log.warn({
      event: "security_alert",
      reason: "proposer_mismatch",
      project: params.project,
      agentId: actor,
    });
    throw new KxmError("state_proposer_mismatch", "proposedBy must name the caller, or be left out");
  }
  if (body.evidenceRefs.length === 0) {
    throw new KxmError("invalid_state_proposal", "a state proposal needs 1 to 32 evidence references");
  }
  await hub.project(params.project);
  const proposal = await hub.store.proposeState(
    {
      project: params.project,
      key: body.key,
      summary: body.summary,
      authority: body.authority,
      confidence: body.confidence,
      evidenceRefs: body.evidenceRefs,
      ...(body.supersedes === undefined ? {} : { supersedes: body.supersedes }),
      ...(body.expiresAt === undefined ? {} : { expiresAt: body.expiresAt }),
      ...(body.reviewBy === undefined ? {} : { reviewBy: body.reviewBy }),
      origin: caller.kind === "agent" ? "peer" : "human",
      proposedBy: actor,
    },
    hub.now(),
  );
  log.info({ event: "state_proposed", project: params.project, proposalId: proposal.id, by: actor });
  return { proposalId: proposal.id };
};

/**
 * Promotes a proposal as the caller: `kxm-admin` (admin token) or `operator:<name>` (an operator's token). The store
 * refuses the author (four eyes: an operator cannot promote their own proposal, a second operator can), another
 * project's proposal and a consumed one.
 */
export const promoteState: RouteHandler<"promoteState"> = async ({ params, body, caller, hub, log }) => {
  if (caller === undefined)
    throw new KxmError("invalid_auth", "the credential is missing, unknown or revoked");
  if ((await hub.store.getProject(params.project)) === undefined) {
    throw new KxmError(
      "state_proposal_not_found",
      `no state proposal ${params.proposalId} in project ${params.project}`,
    );
  }
  const promotion = await hub.store.promoteState(
    {
      project: params.project,
      proposalId: params.proposalId,
      promotedBy: actorOf(caller),
      evidenceRefs: body.evidenceRefs,
    },
    hub.now(),
  );
  log.info({
    event: "state_promoted",
    project: params.project,
    proposalId: params.proposalId,
    stateId: promotion.state.id,
    by: actorOf(caller),
    superseded: promotion.superseded.map((item) => item.id),
  });
  return { state: promotion.state };
};

/** The key's active current value at `asOf` (default now): none is 404, two are 409 `state_contradiction`. */
export const getState: RouteHandler<"getState"> = async ({ params, query, hub }) => {
  await hub.project(params.project);
  const asOf = query.asOf === undefined ? hub.now() : new Date(query.asOf);
  const current = await hub.store.currentState(params.project, params.key, asOf);
  if (current.length === 0) {
    throw new KxmError("not_found", "the state key has no current value at that time");
  }
  if (current.length > 1) {
    throw new KxmError(
      "state_contradiction",
      `${current.length} current values exist for the key (${current.map((item) => item.id).join(", ")}); promote one with evidence`,
    );
  }
  return { state: current[0]! };
};

/** Every retained value and proposal of the key; a key with none answers an empty list. */
export const stateHistory: RouteHandler<"stateHistory"> = async ({ params, hub }) => {
  await hub.project(params.project);
  return { items: await hub.store.stateHistory(params.project, params.key) };
};

/**
 * Open contradictions: keys with competing values or proposals, and the journal's contradiction entries as the
 * item ids packets use (from the project's pool, so this answer and every packet agree), without what the pool
 * withholds.
 */
export const contradictions: RouteHandler<"contradictions"> = async ({ params, hub }) => {
  const pool = await freshPool(hub, params.project);
  return pool.servedContradictions();
};
