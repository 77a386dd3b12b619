import { compareCodeUnits } from "@kxm/contract";
import { ADMIN_ACTOR, actorOf } from "../auth.js";
import type { RouteHandler } from "./types.js";

/**
 * Marks a journal entry of a finished run reviewed, as the caller (`kxm-admin` or `operator:<name>`). The store refuses an entry of
 * another project (404) and one whose run still runs (409 `journal_review_invalid`); a second review answers the
 * first unchanged.
 */
export const reviewJournal: RouteHandler<"reviewJournal"> = async ({ params, body, caller, hub, log }) => {
  await hub.project(params.project);
  const result = await hub.store.reviewJournalEntry(
    {
      project: params.project,
      entryId: params.entryId,
      reviewedBy: caller === undefined ? ADMIN_ACTOR : actorOf(caller),
      ...(body.evidenceRefs === undefined ? {} : { evidenceRefs: body.evidenceRefs }),
    },
    hub.now(),
  );
  log.info({
    event: "journal_reviewed",
    project: params.project,
    entryId: params.entryId,
    created: result.created,
  });
  return result;
};

/**
 * The reviewed records the knowledge wiki is compiled from (docs/reference/behaviour.md section 9 point 5), from the project's pool, so they
 * agree with every packet: current and superseded state (never a pending or consumed proposal), the open
 * contradictions by id, the active memory facts and verified promoted skills of the project's own checkout, and the
 * reviewed journal entries of finished runs. Each list is ordered by id (the journal by creation time, then id).
 * Nothing the pool withholds is listed, open contradictions included (decisions 0017 and 0018).
 */
export const wikiRecords: RouteHandler<"wikiRecords"> = async ({ params, hub }) => {
  const pool = await hub.pool(params.project);
  await pool.refreshAuthored();
  const now = hub.now();
  // Expired items are withheld here as in every packet, so the wiki never states what agents are no longer told.
  pool.withholdExpired(now.getTime());
  const generatedAt = now.toISOString();
  const base = pool.baseItems().sort((a, b) => compareCodeUnits(a.id, b.id));
  const state = base.filter(
    (item) => item.kind === "state" && (item.status === "current" || item.status === "superseded"),
  );
  const memory = base.filter((item) => item.kind !== "skill" && item.id.startsWith("mem_"));
  const skills = base.filter((item) => item.kind === "skill" && item.id.startsWith("skill_"));
  const journal = await hub.store.listReviewedJournal(params.project);
  return {
    project: params.project,
    generatedAt,
    state,
    memory,
    skills,
    // A withheld entry (revoked, or derived from a withheld item) is not compiled either (decision 0017).
    journal: journal.filter(({ entry }) => pool.withheldItem(`journal_${entry.id}`) === undefined),
    contradictions: pool.servedContradictions(),
  };
};
