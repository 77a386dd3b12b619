// Temporal state on PostgreSQL: the same proposals, promotions and reads as `../sqlite/state.ts`.
import type { ContextItem } from "@kxm/contract";
import { and, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import {
  buildProposal,
  byValidFromThenId,
  checkPromotable,
  findContradictions,
  planPromotion,
  promotionRequest,
} from "../domain/state.js";
import { projectId } from "../input.js";
import { isoTime } from "../time.js";
import type {
  StateContradiction,
  StatePromotion,
  StatePromotionInput,
  StateProposalInput,
} from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, requireProject, writeTx } from "./db.js";
import { findItem, insertItem, updateItem } from "./items.js";
import { prepared } from "./prepared.js";
import { itemContributors, items, stateProposals } from "./schema.js";
import { agentRevoked, refuseForgotten } from "./withhold.js";

export async function proposeState(db: Pg, input: StateProposalInput, now: Date): Promise<ContextItem> {
  const project = projectId(input.project);
  const { item, proposedBy } = buildProposal({ ...input, project }, now);
  await writeTx(db, async (tx) => {
    await requireProject(tx, project);
    await refuseForgotten(tx, project, item.summary);
    await insertItem(tx, item, item.validFrom!);
    await tx.insert(stateProposals).values({ project, itemId: item.id, proposedBy });
    await tx.insert(itemContributors).values({ project, itemId: item.id, agent: proposedBy });
    await appendChange(tx, project, "items", [item.id], item.validFrom!);
  });
  return item;
}

/**
 * Every check and write of a promotion happens in one {@link writeTx}: its `change_head` lock makes promotions
 * (from any hub on the database) run one at a time from their first read, so the current values read are the ones
 * superseded and a key never ends with two current values.
 */
export async function promoteState(db: Pg, input: StatePromotionInput, now: Date): Promise<StatePromotion> {
  const project = projectId(input.project);
  const request = promotionRequest(input, now);
  return writeTx(db, async (tx) => {
    const item = await findItem(tx, project, request.proposalId);
    const [review] = await tx
      .select({ proposedBy: stateProposals.proposedBy })
      .from(stateProposals)
      .where(and(eq(stateProposals.project, project), eq(stateProposals.itemId, request.proposalId)));
    const proposal = checkPromotable(project, request, item, review?.proposedBy);
    const current = (
      await tx
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
    ).map((row) => row.body);
    const plan = planPromotion(proposal, current, request);
    for (const old of plan.superseded) await updateItem(tx, old);
    await insertItem(tx, plan.state, plan.at);
    await updateItem(tx, plan.consumed);
    await tx
      .update(stateProposals)
      .set({ promotedBy: request.promotedBy, promotedItemId: plan.state.id, closedAt: plan.at })
      .where(and(eq(stateProposals.project, project), eq(stateProposals.itemId, proposal.id)));
    // The value keeps its agent after retention purges the consumed proposal (decision 0017).
    await tx.insert(itemContributors).values({ project, itemId: plan.state.id, agent: review!.proposedBy });
    const touched = [...plan.superseded, plan.consumed, plan.state].map((changed) => changed.id);
    await appendChange(tx, project, "items", touched, plan.at);
    // A revoked agent's promoted value is withheld: the pools learn its id by rebuilding (decision 0017).
    if (await agentRevoked(tx, project, review!.proposedBy)) {
      await appendChange(tx, project, "project", [], plan.at);
    }
    return { state: plan.state, superseded: plan.superseded, consumed: plan.consumed };
  });
}

/** Current or superseded items of the key active at `asOf` (validFrom <= asOf < validUntil). */
export async function currentState(db: Pg, project: string, key: string, asOf: Date): Promise<ContextItem[]> {
  const at = isoTime(asOf, "asOf");
  const rows = await prepared(db, "kxm_current_state", (pg, name) =>
    pg
      .select({ body: items.body })
      .from(items)
      .where(
        and(
          eq(items.project, sql.placeholder("project")),
          eq(items.kind, "state"),
          eq(items.stateKey, sql.placeholder("key")),
          inArray(items.status, ["current", "superseded"]),
          lte(items.validFrom, sql.placeholder("at")),
          or(isNull(items.validUntil), gt(items.validUntil, sql.placeholder("at"))),
        ),
      )
      .prepare(name),
  ).execute({ project, key, at });
  return rows.map((row) => row.body).sort(byValidFromThenId);
}

export async function stateHistory(db: Pg, project: string, key: string): Promise<ContextItem[]> {
  const rows = await db
    .select({ body: items.body })
    .from(items)
    .where(and(eq(items.project, project), eq(items.kind, "state"), eq(items.stateKey, key)));
  return rows.map((row) => row.body).sort(byValidFromThenId);
}

export async function openContradictions(db: Pg, project: string): Promise<StateContradiction[]> {
  const pending = await db
    .select({ body: items.body })
    .from(items)
    .where(
      and(
        eq(items.project, project),
        eq(items.kind, "state"),
        inArray(items.status, ["current", "proposed"]),
      ),
    );
  return findContradictions(pending.map((row) => row.body));
}
