import type { ContextItem } from "@kxm/contract";
import { and, eq, gt, inArray, isNull, lte, or } from "drizzle-orm";
import {
  buildProposal,
  byValidFromThenId,
  checkPromotable,
  findContradictions,
  planPromotion,
  promotionRequest,
} from "../domain/state.js";
import { projectId } from "../input.js";
import { itemContributors, items, stateProposals } from "../schema.js";
import { isoTime } from "../time.js";
import type {
  StateContradiction,
  StatePromotion,
  StatePromotionInput,
  StateProposalInput,
} from "../types.js";
import { appendChange } from "./changes.js";
import { type Db, immediate, requireProject } from "./db.js";
import { findItem, insertItem, updateItem } from "./items.js";
import { agentRevoked, refuseForgotten } from "./withhold.js";

export function proposeState(db: Db, input: StateProposalInput, now: Date): ContextItem {
  const project = projectId(input.project);
  const { item, proposedBy } = buildProposal({ ...input, project }, now);
  immediate(db, () => {
    requireProject(db, project);
    refuseForgotten(db, project, item.summary);
    insertItem(db, item, item.validFrom!);
    db.insert(stateProposals).values({ project, itemId: item.id, proposedBy }).run();
    db.insert(itemContributors).values({ project, itemId: item.id, agent: proposedBy }).run();
    appendChange(db, project, "items", [item.id], item.validFrom!);
  });
  return item;
}

/** Every check and write of a promotion happens in one BEGIN IMMEDIATE transaction. */
export function promoteState(db: Db, input: StatePromotionInput, now: Date): StatePromotion {
  const project = projectId(input.project);
  const request = promotionRequest(input, now);
  return immediate(db, () => {
    const item = findItem(db, project, request.proposalId);
    const review = db
      .select({ proposedBy: stateProposals.proposedBy })
      .from(stateProposals)
      .where(and(eq(stateProposals.project, project), eq(stateProposals.itemId, request.proposalId)))
      .get();
    const proposal = checkPromotable(project, request, item, review?.proposedBy);
    const current = db
      .select({ body: items.body })
      .from(items)
      .where(
        and(
          eq(items.project, project),
          eq(items.kind, "state"),
          eq(items.stateKey, proposal.stateKey!),
          eq(items.status, "current"),
        ),
      )
      .all()
      .map((row) => row.body);
    const plan = planPromotion(proposal, current, request);
    for (const old of plan.superseded) updateItem(db, old);
    insertItem(db, plan.state, plan.at);
    updateItem(db, plan.consumed);
    db.update(stateProposals)
      .set({ promotedBy: request.promotedBy, promotedItemId: plan.state.id, closedAt: plan.at })
      .where(and(eq(stateProposals.project, project), eq(stateProposals.itemId, proposal.id)))
      .run();
    // The value keeps its agent after retention purges the consumed proposal (decision 0017).
    db.insert(itemContributors).values({ project, itemId: plan.state.id, agent: review!.proposedBy }).run();
    const touched = [...plan.superseded, plan.consumed, plan.state].map((changed) => changed.id);
    appendChange(db, project, "items", touched, plan.at);
    // A revoked agent's promoted value is withheld: the pools learn its id by rebuilding (decision 0017).
    if (agentRevoked(db, project, review!.proposedBy)) appendChange(db, project, "project", [], plan.at);
    return { state: plan.state, superseded: plan.superseded, consumed: plan.consumed };
  });
}

/** Current or superseded items of the key active at `asOf` (validFrom <= asOf < validUntil). */
export function currentState(db: Db, project: string, key: string, asOf: Date): ContextItem[] {
  const at = isoTime(asOf, "asOf");
  return db
    .select({ body: items.body })
    .from(items)
    .where(
      and(
        eq(items.project, project),
        eq(items.kind, "state"),
        eq(items.stateKey, key),
        inArray(items.status, ["current", "superseded"]),
        lte(items.validFrom, at),
        or(isNull(items.validUntil), gt(items.validUntil, at)),
      ),
    )
    .all()
    .map((row) => row.body)
    .sort(byValidFromThenId);
}

export function stateHistory(db: Db, project: string, key: string): ContextItem[] {
  return db
    .select({ body: items.body })
    .from(items)
    .where(and(eq(items.project, project), eq(items.kind, "state"), eq(items.stateKey, key)))
    .all()
    .map((row) => row.body)
    .sort(byValidFromThenId);
}

export function openContradictions(db: Db, project: string): StateContradiction[] {
  const pending = db
    .select({ body: items.body })
    .from(items)
    .where(
      and(
        eq(items.project, project),
        eq(items.kind, "state"),
        inArray(items.status, ["current", "proposed"]),
      ),
    )
    .all();
  return findContradictions(pending.map((row) => row.body));
}
