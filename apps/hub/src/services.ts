import { KxmError, type ProjectRecord } from "@kxm/contract";
import type { KxmStore, PurgeCounts } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import type { AdminToken } from "./auth.js";
import { describeError } from "./logging.js";
import { PacketAuditWriter } from "./packet-audit.js";
import { PoolCache } from "./pool-cache.js";
import type { ProjectPool } from "./project-pool.js";

/** What every route handler works with: the store, the pools, the clock and the logger. */
export class HubServices {
  readonly pools: PoolCache;
  /** Stores each served packet's audit, a turn's packets in one transaction. */
  readonly packets: PacketAuditWriter;

  constructor(
    readonly store: KxmStore,
    readonly log: FastifyBaseLogger,
    readonly now: () => Date,
    readonly admin: AdminToken | undefined,
    readonly retentionDays: number,
    readonly version: string,
  ) {
    this.pools = new PoolCache(store, log);
    this.packets = new PacketAuditWriter(store);
  }

  /**
   * The registered project, or 404 `not_found`. Every route that reads a project asks here first, so the pools
   * catch up with the change feed (other processes' writes, and this one's) before anything is read.
   */
  async project(id: string): Promise<ProjectRecord> {
    await this.pools.sync();
    const known = this.pools.knownProject(id);
    if (known !== undefined) return known;
    const project = await this.store.getProject(id);
    if (project === undefined) throw new KxmError("not_found", `no project ${id} is registered`);
    return project;
  }

  /** The registered project's pool (404 `not_found` otherwise), caught up with the change feed once. */
  async pool(id: string): Promise<ProjectPool> {
    return this.pools.get(await this.project(id));
  }

  /** Reloads the pools of these projects from the store; returns how many loaded. */
  private async rebuild(projects: readonly string[]): Promise<number> {
    let rebuilt = 0;
    for (const id of projects) {
      try {
        await this.pool(id);
        rebuilt += 1;
      } catch (error) {
        // The pool reloads on its next use instead; the request that needs it will report the failure.
        this.log.warn({ event: "pool_rebuild_failed", project: id, error: describeError(error) });
      }
    }
    return rebuilt;
  }

  /**
   * Purges what retention no longer keeps (`retentionDays` after it ended) and rebuilds the loaded pools of the
   * projects it touched (the purge's changes in the feed drop them), so no purged record is served from memory.
   * Logs counts only.
   */
  async purge(): Promise<PurgeCounts> {
    const started = performance.now();
    const counts = await this.store.purge(this.now(), this.retentionDays);
    if (counts.items + counts.runs + counts.journal > 0) {
      const rebuilt = await this.rebuild(await this.pools.sync());
      this.log.info({ event: "retention_purge", ...counts, poolsRebuilt: rebuilt, durationMs: ms(started) });
    } else if (counts.packets > 0) {
      // Stored packets feed no pool: nothing to rebuild.
      this.log.info({ event: "retention_purge", ...counts, poolsRebuilt: 0, durationMs: ms(started) });
    } else {
      this.log.debug({ event: "retention_purge", ...counts, durationMs: ms(started) });
    }
    return counts;
  }
}

/** Milliseconds since `started` (a `performance.now()` value), to a tenth. */
function ms(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
