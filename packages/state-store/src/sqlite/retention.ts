import { compareCodeUnits } from "@kxm/contract";
import { and, type Column, eq, exists, inArray, isNotNull, lt, ne } from "drizzle-orm";
import { purgeHorizon } from "../domain/retention.js";
import { items, journalEntries, packetAudits, runs } from "../schema.js";
import { isoTime } from "../time.js";
import type { PurgeCounts } from "../types.js";
import { appendChange, pruneChanges } from "./changes.js";
import { type Db, immediate } from "./db.js";
import { pruneVersions, snapshotVersions } from "./versions.js";

/**
 * Deletes, in one transaction, superseded state and closed (consumed) proposals whose `validUntil` is before the
 * horizon, terminal runs that finished before it with their journal entries and episode, and stored packets last
 * served before it. Each project that lost a record other than a stored packet gets one `purge` change (its readers
 * rebuild it) with a deletion marker per purged record, the change feed's entries from before the horizon go too,
 * and so does every record version the oldest stored packet left cannot read.
 */
export function purge(db: Db, now: Date, retentionDays: number): PurgeCounts {
  const horizon = purgeHorizon(now, retentionDays);
  const expiredRun = (project: Column, runId: Column) =>
    exists(
      db
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
  return immediate(db, () => {
    const state = db
      .delete(items)
      .where(
        and(
          eq(items.kind, "state"),
          inArray(items.status, ["superseded", "rejected"]),
          lt(items.validUntil, horizon),
        ),
      )
      .returning({ project: items.project, id: items.id })
      .all();
    const episodes = db
      .delete(items)
      .where(and(eq(items.kind, "episode"), isNotNull(items.runId), expiredRun(items.project, items.runId)))
      .returning({ project: items.project, id: items.id })
      .all();
    const journal = db
      .delete(journalEntries)
      .where(expiredRun(journalEntries.project, journalEntries.runId))
      .returning({ project: journalEntries.project, id: journalEntries.id })
      .all();
    const finished = db
      .delete(runs)
      .where(and(ne(runs.status, "running"), lt(runs.finishedAt, horizon)))
      .returning({ project: runs.project })
      .all();
    // A stored packet changes no pool, packet or recall: its purge appends no change.
    const packets = db.delete(packetAudits).where(lt(packetAudits.lastServedAt, horizon)).run().changes;
    const touched = new Set([...state, ...episodes, ...journal, ...finished].map((row) => row.project));
    const at = isoTime(now, "now");
    pruneChanges(db, horizon);
    // Each purged record gets a deletion marker at its project's purge change, so a packet read after it does not
    // see the record; then the versions no stored packet can read go (decision 0016).
    const purgedIds = (rows: readonly { project: string; id: string }[], project: string) =>
      rows.filter((row) => row.project === project).map((row) => row.id);
    for (const project of [...touched].sort(compareCodeUnits)) {
      const seq = appendChange(db, project, "purge", [], at);
      snapshotVersions(db, project, seq, "item", purgedIds([...state, ...episodes], project));
      snapshotVersions(db, project, seq, "entry", purgedIds(journal, project));
    }
    pruneVersions(db);
    return {
      items: state.length + episodes.length,
      runs: finished.length,
      journal: journal.length,
      packets,
    };
  });
}
