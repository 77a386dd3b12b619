// Revocations and tombstones (decision 0017): the operator's withdrawals and what was forgotten.
import { compareCodeUnits, KxmError, type Revocation, type Tombstone } from "@kxm/contract";
import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { contentSha256 } from "../domain/content.js";
import {
  newRevocation,
  reasonText,
  tombstoneFor,
  toRevocation,
  toTombstone,
  unlifted,
} from "../domain/withhold.js";
import { randomId } from "../ids.js";
import { projectId, recordId } from "../input.js";
import { itemContributors, items, journalEntries, revocations, tombstones } from "../schema.js";
import { isoTime } from "../time.js";
import type { ForgetInput, LiftInput, RevokeInput, WithholdRules } from "../types.js";
import { appendChange } from "./changes.js";
import { type Db, immediate, requireProject } from "./db.js";
import { forgetVersions } from "./versions.js";

/**
 * Refuses a write whose content an active tombstone of the project holds (409 `content_forgotten`). Call it inside
 * the write's transaction, so a tombstone committed by another process first is seen.
 */
export function refuseForgotten(db: Db, project: string, summary: string): void {
  const hash = contentSha256(summary);
  const row = db
    .select({ id: tombstones.id })
    .from(tombstones)
    .where(
      and(eq(tombstones.project, project), eq(tombstones.contentSha256, hash), isNull(tombstones.liftedAt)),
    )
    .get();
  if (row !== undefined) {
    throw new KxmError(
      "content_forgotten",
      `this content was forgotten (tombstone ${row.id}); an operator must lift the tombstone before it is written again`,
    );
  }
}

export function revoke(db: Db, input: RevokeInput, now: Date): Revocation {
  const row = newRevocation(input, now);
  const { project } = row;
  return immediate(db, () => {
    requireProject(db, project);
    const createdSeq = appendChange(db, project, "project", [], row.revokedAt);
    db.insert(revocations)
      .values({ ...row, createdSeq })
      .run();
    return toRevocation(db.select().from(revocations).where(eq(revocations.id, row.id)).get()!);
  });
}

export function listRevocations(db: Db, project: string): Revocation[] {
  requireProject(db, projectId(project));
  return db
    .select()
    .from(revocations)
    .where(eq(revocations.project, project))
    .orderBy(asc(revocations.revokedAt), asc(revocations.id))
    .all()
    .map(toRevocation);
}

export function liftRevocation(db: Db, input: LiftInput, now: Date): Revocation {
  return toRevocation(lift(db, revocations, "revocation", input, now));
}

/** The journal entry an id names: its own id (`j_…`) or its item's (`journal_j_…`). */
function findEntry(db: Db, project: string, id: string) {
  const ids = id.startsWith("journal_") ? [id, id.slice("journal_".length)] : [id];
  return db
    .select({ id: journalEntries.id, body: journalEntries.body })
    .from(journalEntries)
    .where(and(eq(journalEntries.project, project), inArray(journalEntries.id, ids)))
    .get();
}

/**
 * Forgets an id: the stored item or journal entry it names, and every other stored item and journal entry of the
 * project with the same content (the summary), are deleted; a tombstone keeps the id, who, when, why and the
 * content's SHA-256. An authored id (given `authoredSummary`) deletes only stored copies of its content. Returns
 * the tombstone and the ids deleted (items' ids, journal entries as their item ids `journal_<entryId>`), sorted.
 */
export function forget(db: Db, input: ForgetInput, now: Date): { tombstone: Tombstone; deleted: string[] } {
  const project = projectId(input.project);
  const itemId = recordId(input.itemId, "itemId", "invalid_request");
  const reason = reasonText(input.reason);
  const forgottenBy = recordId(input.forgottenBy, "forgottenBy", "invalid_request");
  const at = isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, project);
    const base = { id: randomId("tomb_"), project, reason, forgottenBy, forgottenAt: at };
    const item = db
      .select({ body: items.body })
      .from(items)
      .where(and(eq(items.project, project), eq(items.id, itemId)))
      .get();
    const entry = item === undefined ? findEntry(db, project, itemId) : undefined;
    const { row, summary } = tombstoneFor(base, itemId, {
      item: item?.body,
      entry: entry === undefined ? undefined : { id: entry.id, summary: entry.body.summary },
      authoredSummary: input.authoredSummary,
    });
    // Every stored copy of the content goes: a consumed proposal holds its promoted value's summary too. A
    // proposal's review record and an entry's review cascade with them.
    const goneItems = db
      .delete(items)
      .where(and(eq(items.project, project), sql`json_extract(${items.body}, '$.summary') = ${summary}`))
      .returning({ id: items.id })
      .all()
      .map((gone) => gone.id);
    const goneEntries = db
      .delete(journalEntries)
      .where(
        and(
          eq(journalEntries.project, project),
          sql`json_extract(${journalEntries.body}, '$.summary') = ${summary}`,
        ),
      )
      .returning({ id: journalEntries.id })
      .all()
      .map((gone) => gone.id);
    if (goneItems.length > 0) appendChange(db, project, "items", goneItems, at);
    if (goneEntries.length > 0) appendChange(db, project, "journal", goneEntries, at);
    // Forgetting keeps no content: no version of any record keeps it either (decision 0016).
    forgetVersions(db, project, summary);
    const createdSeq = appendChange(db, project, "project", [], at);
    db.insert(tombstones)
      .values({ ...row, createdSeq })
      .run();
    const tombstone = toTombstone(db.select().from(tombstones).where(eq(tombstones.id, row.id!)).get()!);
    const deleted = [...goneItems, ...goneEntries.map((id) => `journal_${id}`)].sort(compareCodeUnits);
    return { tombstone, deleted };
  });
}

export function listTombstones(db: Db, project: string): Tombstone[] {
  requireProject(db, projectId(project));
  return db
    .select()
    .from(tombstones)
    .where(eq(tombstones.project, project))
    .orderBy(asc(tombstones.forgottenAt), asc(tombstones.id))
    .all()
    .map(toTombstone);
}

export function liftTombstone(db: Db, input: LiftInput, now: Date): Tombstone {
  return toTombstone(lift(db, tombstones, "tombstone", input, now));
}

/**
 * Lifts an active revocation or tombstone of the project: records who, when and why on its row (which stays, so the
 * list is the whole history) and appends a `project` change, so every hub rebuilds the project's pool. An unknown
 * id is `not_found`, one already lifted `invalid_request`.
 */
function lift<T extends typeof revocations | typeof tombstones>(
  db: Db,
  table: T,
  noun: string,
  input: LiftInput,
  now: Date,
): T["$inferSelect"] {
  const project = projectId(input.project);
  const reason = reasonText(input.reason);
  const liftedBy = recordId(input.liftedBy, "liftedBy", "invalid_request");
  const at = isoTime(now, "now");
  return immediate(db, () => {
    requireProject(db, project);
    const row = db
      .select()
      .from(table)
      .where(and(eq(table.project, project), eq(table.id, String(input.id))))
      .get() as T["$inferSelect"] | undefined;
    if (row === undefined) throw new KxmError("not_found", `no ${noun} ${input.id} in project ${project}`);
    if (row.liftedAt !== null) {
      throw new KxmError("invalid_request", `${noun} ${row.id} was already lifted at ${row.liftedAt}`);
    }
    const liftedSeq = appendChange(db, project, "project", [], at);
    // Drizzle cannot type `set` over a union of tables; the lift columns are alike in both.
    db.update(table as typeof revocations)
      .set({ liftedBy, liftedAt: at, liftReason: reason, liftedSeq })
      .where(eq(table.id, row.id))
      .run();
    return { ...row, liftedBy, liftedAt: at, liftReason: reason, liftedSeq };
  });
}

/** The rows of a rules table active now, or once every change up to `asOfSeq` was applied. */
function activeRule(table: typeof revocations | typeof tombstones, project: string, asOfSeq?: number) {
  if (asOfSeq === undefined) return and(eq(table.project, project), isNull(table.liftedAt));
  return and(
    eq(table.project, project),
    lte(table.createdSeq, asOfSeq),
    or(isNull(table.liftedSeq), gt(table.liftedSeq, asOfSeq)),
  );
}

/**
 * The project's active revocations and tombstones (with `asOfSeq`, those active at that change seq; a rule lifted
 * since is reported as it was then, unlifted), and the items each revoked agent contributed: the proposals it made
 * and the values promoted from them (`item_contributors` records both). Read in one snapshot.
 */
export function withholdRules(db: Db, project: string, asOfSeq?: number): WithholdRules {
  return db.transaction(() => {
    const active = db
      .select()
      .from(revocations)
      .where(activeRule(revocations, project, asOfSeq))
      .orderBy(asc(revocations.revokedAt), asc(revocations.id))
      .all()
      .map(toRevocation)
      .map((revocation) => (asOfSeq === undefined ? revocation : unlifted(revocation)));
    const forgotten = db
      .select()
      .from(tombstones)
      .where(activeRule(tombstones, project, asOfSeq))
      .orderBy(asc(tombstones.forgottenAt), asc(tombstones.id))
      .all()
      .map(toTombstone)
      .map((tombstone) => (asOfSeq === undefined ? tombstone : unlifted(tombstone)));
    const agents = [...new Set(active.filter((r) => r.target === "agent").map((r) => r.value))].sort(
      compareCodeUnits,
    );
    const agentItems = new Map<string, string>();
    if (agents.length > 0) {
      const rows = db
        .select({ itemId: itemContributors.itemId, agent: itemContributors.agent })
        .from(itemContributors)
        .where(and(eq(itemContributors.project, project), inArray(itemContributors.agent, agents)))
        .all();
      for (const row of rows) agentItems.set(row.itemId, row.agent);
    }
    return { revocations: active, tombstones: forgotten, agentItems };
  });
}

/**
 * Whether a promotion of `proposedBy`'s proposal must rebuild the project's pools: an active revocation of that
 * agent withholds the promoted value, which only a rebuild's {@link withholdRules} names.
 */
export function agentRevoked(db: Db, project: string, agent: string): boolean {
  return (
    db
      .select({ id: revocations.id })
      .from(revocations)
      .where(
        and(
          eq(revocations.project, project),
          eq(revocations.target, "agent"),
          eq(revocations.value, agent),
          isNull(revocations.liftedAt),
          isNotNull(revocations.revokedAt),
        ),
      )
      .get() !== undefined
  );
}
