// Revocations and tombstones on PostgreSQL (decision 0017): the same records and reads as `../sqlite/withhold.ts`.
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
import { isoTime } from "../time.js";
import type { ForgetInput, LiftInput, RevokeInput, WithholdRules } from "../types.js";
import { appendChange } from "./changes.js";
import { type Pg, requireProject, snapshotTx, writeTx } from "./db.js";
import { itemContributors, items, journalEntries, revocations, tombstones } from "./schema.js";
import { forgetVersions, summaryIs } from "./versions.js";

/**
 * Refuses a write whose content an active tombstone of the project holds (409 `content_forgotten`). Call it inside
 * the write's {@link writeTx}: its `change_head` lock orders it after any forgetting committed by another hub, and
 * READ COMMITTED shows that tombstone to this statement.
 */
export async function refuseForgotten(tx: Pg, project: string, summary: string): Promise<void> {
  const hash = contentSha256(summary);
  const [row] = await tx
    .select({ id: tombstones.id })
    .from(tombstones)
    .where(
      and(eq(tombstones.project, project), eq(tombstones.contentSha256, hash), isNull(tombstones.liftedAt)),
    )
    .limit(1);
  if (row !== undefined) {
    throw new KxmError(
      "content_forgotten",
      `this content was forgotten (tombstone ${row.id}); an operator must lift the tombstone before it is written again`,
    );
  }
}

export async function revoke(db: Pg, input: RevokeInput, now: Date): Promise<Revocation> {
  const row = newRevocation(input, now);
  const { project } = row;
  return writeTx(db, async (tx) => {
    await requireProject(tx, project);
    const createdSeq = await appendChange(tx, project, "project", [], row.revokedAt);
    const [stored] = await tx
      .insert(revocations)
      .values({ ...row, createdSeq })
      .returning();
    return toRevocation(stored!);
  });
}

export async function listRevocations(db: Pg, project: string): Promise<Revocation[]> {
  await requireProject(db, projectId(project));
  const rows = await db
    .select()
    .from(revocations)
    .where(eq(revocations.project, project))
    .orderBy(asc(revocations.revokedAt), asc(revocations.id));
  return rows.map(toRevocation);
}

export async function liftRevocation(db: Pg, input: LiftInput, now: Date): Promise<Revocation> {
  return toRevocation(await lift(db, revocations, "revocation", input, now));
}

/** The journal entry an id names: its own id (`j_…`) or its item's (`journal_j_…`). */
async function findEntry(tx: Pg, project: string, id: string) {
  const ids = id.startsWith("journal_") ? [id, id.slice("journal_".length)] : [id];
  const [row] = await tx
    .select({ id: journalEntries.id, body: journalEntries.body })
    .from(journalEntries)
    .where(and(eq(journalEntries.project, project), inArray(journalEntries.id, ids)))
    .limit(1);
  return row;
}

/**
 * Forgets an id: the stored item or journal entry it names, and every other stored item and journal entry of the
 * project with the same content (the summary), are deleted; a tombstone keeps the id, who, when, why and the
 * content's SHA-256. An authored id (given `authoredSummary`) deletes only stored copies of its content. Returns
 * the tombstone and the ids deleted (items' ids, journal entries as their item ids `journal_<entryId>`), sorted.
 *
 * Where the content goes: once the transaction commits, no row (item, journal entry or record version) holds it,
 * and no query can read it. PostgreSQL keeps a deleted or updated row's old tuple in the table's pages until
 * VACUUM frees it, so a plain `VACUUM` of the three tables runs after the commit (it cannot run in a transaction).
 * That is not SQLite's `secure_delete`: VACUUM marks the space free without zeroing it (new rows overwrite it in
 * time), skips tuples an older open snapshot may still see, and the WAL segments (and any archive or replica)
 * keep the content until they are recycled. A full wipe is the database operator's: `VACUUM FULL`, then rotating
 * the WAL and its archives. `db` must be the database, not a transaction (VACUUM would fail in one).
 */
export async function forget(
  db: Pg,
  input: ForgetInput,
  now: Date,
): Promise<{ tombstone: Tombstone; deleted: string[] }> {
  const project = projectId(input.project);
  const itemId = recordId(input.itemId, "itemId", "invalid_request");
  const reason = reasonText(input.reason);
  const forgottenBy = recordId(input.forgottenBy, "forgottenBy", "invalid_request");
  const at = isoTime(now, "now");
  const result = await writeTx(db, async (tx) => {
    await requireProject(tx, project);
    const base = { id: randomId("tomb_"), project, reason, forgottenBy, forgottenAt: at };
    const [item] = await tx
      .select({ body: items.body })
      .from(items)
      .where(and(eq(items.project, project), eq(items.id, itemId)));
    const entry = item === undefined ? await findEntry(tx, project, itemId) : undefined;
    const { row, summary } = tombstoneFor(base, itemId, {
      item: item?.body,
      entry: entry === undefined ? undefined : { id: entry.id, summary: entry.body.summary },
      authoredSummary: input.authoredSummary,
    });
    // Every stored copy of the content goes: a consumed proposal holds its promoted value's summary too. A
    // proposal's review record and an entry's review cascade with them.
    const goneItems = (
      await tx
        .delete(items)
        .where(and(eq(items.project, project), summaryIs(items.body, summary)))
        .returning({ id: items.id })
    ).map((gone) => gone.id);
    const goneEntries = (
      await tx
        .delete(journalEntries)
        .where(and(eq(journalEntries.project, project), summaryIs(journalEntries.body, summary)))
        .returning({ id: journalEntries.id })
    ).map((gone) => gone.id);
    if (goneItems.length > 0) await appendChange(tx, project, "items", goneItems, at);
    if (goneEntries.length > 0) await appendChange(tx, project, "journal", goneEntries, at);
    // Forgetting keeps no content: no version of any record keeps it either (decision 0016).
    await forgetVersions(tx, project, summary);
    const createdSeq = await appendChange(tx, project, "project", [], at);
    const [stored] = await tx
      .insert(tombstones)
      .values({ ...row, createdSeq })
      .returning();
    const deleted = [...goneItems, ...goneEntries.map((id) => `journal_${id}`)].sort(compareCodeUnits);
    return { tombstone: toTombstone(stored!), deleted };
  });
  await db.execute(sql`vacuum items, journal_entries, record_versions`);
  return result;
}

export async function listTombstones(db: Pg, project: string): Promise<Tombstone[]> {
  await requireProject(db, projectId(project));
  const rows = await db
    .select()
    .from(tombstones)
    .where(eq(tombstones.project, project))
    .orderBy(asc(tombstones.forgottenAt), asc(tombstones.id));
  return rows.map(toTombstone);
}

export async function liftTombstone(db: Pg, input: LiftInput, now: Date): Promise<Tombstone> {
  return toTombstone(await lift(db, tombstones, "tombstone", input, now));
}

/**
 * Lifts an active revocation or tombstone of the project: records who, when and why on its row (which stays, so the
 * list is the whole history) and appends a `project` change, so every hub rebuilds the project's pool. An unknown
 * id is `not_found`, one already lifted `invalid_request`.
 */
async function lift<T extends typeof revocations | typeof tombstones>(
  db: Pg,
  table: T,
  noun: string,
  input: LiftInput,
  now: Date,
): Promise<T["$inferSelect"]> {
  const project = projectId(input.project);
  const reason = reasonText(input.reason);
  const liftedBy = recordId(input.liftedBy, "liftedBy", "invalid_request");
  const at = isoTime(now, "now");
  return writeTx(db, async (tx) => {
    await requireProject(tx, project);
    // Drizzle cannot type `from` or `set` over a union of tables; the columns used are alike in both.
    const rules = table as typeof revocations;
    const [row] = (await tx
      .select()
      .from(rules)
      .where(and(eq(rules.project, project), eq(rules.id, String(input.id))))) as T["$inferSelect"][];
    if (row === undefined) throw new KxmError("not_found", `no ${noun} ${input.id} in project ${project}`);
    if (row.liftedAt !== null) {
      throw new KxmError("invalid_request", `${noun} ${row.id} was already lifted at ${row.liftedAt}`);
    }
    const liftedSeq = await appendChange(tx, project, "project", [], at);
    await tx
      .update(rules)
      .set({ liftedBy, liftedAt: at, liftReason: reason, liftedSeq })
      .where(eq(rules.id, row.id));
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
export function withholdRules(db: Pg, project: string, asOfSeq?: number): Promise<WithholdRules> {
  return snapshotTx(db, async (tx) => {
    const active = (
      await tx
        .select()
        .from(revocations)
        .where(activeRule(revocations, project, asOfSeq))
        .orderBy(asc(revocations.revokedAt), asc(revocations.id))
    )
      .map(toRevocation)
      .map((revocation) => (asOfSeq === undefined ? revocation : unlifted(revocation)));
    const forgotten = (
      await tx
        .select()
        .from(tombstones)
        .where(activeRule(tombstones, project, asOfSeq))
        .orderBy(asc(tombstones.forgottenAt), asc(tombstones.id))
    )
      .map(toTombstone)
      .map((tombstone) => (asOfSeq === undefined ? tombstone : unlifted(tombstone)));
    const agents = [...new Set(active.filter((r) => r.target === "agent").map((r) => r.value))].sort(
      compareCodeUnits,
    );
    const agentItems = new Map<string, string>();
    if (agents.length > 0) {
      const rows = await tx
        .select({ itemId: itemContributors.itemId, agent: itemContributors.agent })
        .from(itemContributors)
        .where(and(eq(itemContributors.project, project), inArray(itemContributors.agent, agents)));
      for (const row of rows) agentItems.set(row.itemId, row.agent);
    }
    return { revocations: active, tombstones: forgotten, agentItems };
  });
}

/**
 * Whether a promotion of `proposedBy`'s proposal must rebuild the project's pools: an active revocation of that
 * agent withholds the promoted value, which only a rebuild's {@link withholdRules} names.
 */
export async function agentRevoked(tx: Pg, project: string, agent: string): Promise<boolean> {
  const [row] = await tx
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
    .limit(1);
  return row !== undefined;
}
