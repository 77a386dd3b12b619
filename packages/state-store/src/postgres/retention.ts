// Retention on PostgreSQL: the same purge as `../sqlite/retention.ts`, in one write transaction.
import { compareCodeUnits } from "@kxm/contract";
import { and, type Column, eq, exists, inArray, isNotNull, lt, ne } from "drizzle-orm";
import { purgeHorizon } from "../domain/retention.js";
import { isoTime } from "../time.js";
import type { PurgeCounts } from "../types.js";
import { appendChange, pruneChanges } from "./changes.js";
import { type Pg, writeTx } from "./db.js";
import { items, journalEntries, packetAudits, runs } from "./schema.js";
import { pruneVersions, snapshotVersions } from "./versions.js";

/**
 * Deletes, in one {@link writeTx}, superseded state and closed (consumed) proposals whose `validUntil` is before
 * the horizon, terminal runs that finished before it with their journal entries and episode, and stored packets
 * last served before it, as the SQLite store's `purge` does: each project that lost a record other than a stored
 * packet gets one `purge` change with a deletion marker per purged record, the change feed's entries from before
 * the horizon go, and so does every record version the oldest stored packet left cannot read.
 */
export async function purge(db: Pg, now: Date, retentionDays: number): Promise<PurgeCounts> {
  const horizon = purgeHorizon(now, retentionDays);
  return writeTx(db, async (tx) => {
    const expiredRun = (project: Column, runId: Column) =>
      exists(
        tx
          .select({ id: runs.id })
          .from(runs)
          .where(
            and(
              eq(runs.project, project),
              eq(runs.id, runId),
              ne(runs.status, "running"),
              lt(runs.finishedAt, horizon),
            ),
          ),
      );
    const state = await tx
      .delete(items)
      .where(
        and(
          eq(items.kind, "state"),
          inArray(items.status, ["superseded", "rejected"]),
          lt(items.validUntil, horizon),
        ),
      )
      .returning({ project: items.project, id: items.id });
    const episodes = await tx
      .delete(items)
      .where(and(eq(items.kind, "episode"), isNotNull(items.runId), expiredRun(items.project, items.runId)))
      .returning({ project: items.project, id: items.id });
    const journal = await tx
      .delete(journalEntries)
      .where(expiredRun(journalEntries.project, journalEntries.runId))
      .returning({ project: journalEntries.project, id: journalEntries.id });
    const finished = await tx
      .delete(runs)
      .where(and(ne(runs.status, "running"), lt(runs.finishedAt, horizon)))
      .returning({ project: runs.project });
    // A stored packet changes no pool, packet or recall: its purge appends no change.
    const packets = await tx
      .delete(packetAudits)
      .where(lt(packetAudits.lastServedAt, horizon))
      .returning({ packetId: packetAudits.packetId });
    const touched = new Set([...state, ...episodes, ...journal, ...finished].map((row) => row.project));
    const at = isoTime(now, "now");
    await pruneChanges(tx, horizon);
    // Each purged record gets a deletion marker at its project's purge change, so a packet read after it does not
    // see the record; then the versions no stored packet can read go (decision 0016).
    const purgedIds = (rows: readonly { project: string; id: string }[], project: string) =>
      rows.filter((row) => row.project === project).map((row) => row.id);
    for (const project of [...touched].sort(compareCodeUnits)) {
      const seq = await appendChange(tx, project, "purge", [], at);
      await snapshotVersions(tx, project, seq, "item", purgedIds([...state, ...episodes], project));
      await snapshotVersions(tx, project, seq, "entry", purgedIds(journal, project));
    }
    await pruneVersions(tx);
    return {
      items: state.length + episodes.length,
      runs: finished.length,
      journal: journal.length,
      packets: packets.length,
    };
  });
}
