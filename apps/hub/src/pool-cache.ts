// Every project's pool, loaded on first use and kept equal to the store through its change feed.
import type { ProjectRecord } from "@kxm/contract";
import type { KxmStore, StoreChange } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import { readAuthored } from "./authored.js";
import { toJournalRecords } from "./journal-records.js";
import { ProjectPool } from "./project-pool.js";

interface CacheEntry {
  pool: ProjectPool | undefined;
  readonly ready: Promise<ProjectPool>;
}

/** Which records a run of changes to one project names, and whether the project must be rebuilt instead. */
function plan(changes: readonly StoreChange[]) {
  const items = new Set<string>();
  const entries = new Set<string>();
  let rebuild = false;
  for (const change of changes) {
    if (change.kind === "project" || change.kind === "purge") rebuild = true;
    else if (change.kind === "items") for (const id of change.ids) items.add(id);
    else if (change.kind === "journal") for (const id of change.ids) entries.add(id);
    // `run` and `review` changes touch nothing a pool holds: the wiki reads reviews from the store.
  }
  return { rebuild, items: [...items], entries: [...entries] };
}

/**
 * Every project's pool, loaded on first use and then kept equal to the store through the store's change feed
 * (decision 0006), whichever process wrote: this hub's writes and those of any other process on the same
 * database reach the pools the same way, once each. Every request first calls {@link sync} (once, through
 * `HubServices.project`), which applies the changes after this hub's cursor: a change to items or journal entries
 * re-reads those records from the store, in the snapshot the changes were read in (so a pool ends exactly at the
 * batch's head, whatever other processes write meanwhile), and a project, purge or reset change drops the pool,
 * which reloads on its next use.
 */
export class PoolCache {
  private entries = new Map<string, CacheEntry>();
  private readonly loadedProjects = new Map<string, ProjectRecord>();
  /** The feed's `seq` up to which every change has reached the pools; undefined until the first sync. */
  private cursor: number | undefined;
  /** The last catch-up, running or done: rounds run one at a time. */
  private tail: Promise<unknown> = Promise.resolve();
  /** A round waiting for the running one: it starts later than any caller that joins it. */
  private queued: Promise<string[]> | undefined;

  constructor(
    private readonly store: KxmStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Brings every loaded pool up to date with the changes committed before this call, by any process. Concurrent
   * callers share a round that has not started yet, so each waits for one that began after it asked. Resolves
   * to the projects whose pools were dropped (they reload on next use).
   */
  sync(): Promise<string[]> {
    if (this.queued !== undefined) return this.queued;
    const round = this.tail.then(() => {
      this.queued = undefined;
      return this.catchUp();
    });
    this.queued = round;
    this.tail = round.catch(() => undefined);
    return round;
  }

  /**
   * The project's pool, loading it first if needed. It is as fresh as the last {@link sync}: callers reach it
   * through `HubServices.project`, which syncs once per request (a second round here would cost every request one
   * more read of the feed).
   */
  get(project: ProjectRecord): Promise<ProjectPool> {
    const existing = this.entries.get(project.id);
    if (existing !== undefined)
      return existing.pool === undefined ? existing.ready : Promise.resolve(existing.pool);
    const entry: CacheEntry = {
      pool: undefined,
      ready: this.load(project).then((pool) => {
        entry.pool = pool;
        return pool;
      }),
    };
    this.entries.set(project.id, entry);
    entry.ready.catch(() => {
      if (this.entries.get(project.id) === entry) this.forget(project.id);
    });
    return entry.ready;
  }

  /**
   * Forgets a project whose checkout changed or that was removed: its pool and its cached record go, so the next
   * request reads the project from the store again (and a removed one answers 404).
   */
  forget(id: string): void {
    this.entries.delete(id);
    this.loadedProjects.delete(id);
  }

  /** A project whose pool was loaded and not forgotten since, without touching the store. */
  knownProject(id: string): ProjectRecord | undefined {
    return this.loadedProjects.get(id);
  }

  /** Drops every pool; each reloads on its next use. Returns the ids that were loaded. */
  invalidateAll(): string[] {
    const ids = [...this.entries.keys()];
    this.entries = new Map();
    this.loadedProjects.clear();
    return ids;
  }

  /**
   * One round: the changes after the cursor, applied project by project. A pool still loading when a change to its
   * project arrives is dropped, since its snapshot may predate the change; the requests already waiting for it
   * asked before the change was seen. The cursor moves only once every change is applied, so a round that fails
   * is repeated by the next one (re-reading a record is harmless).
   */
  private async catchUp(): Promise<string[]> {
    if (this.cursor === undefined) {
      // The first round: nothing is loaded yet, and every pool loaded from now holds what precedes the head.
      this.cursor = await this.store.changeHead();
      return [];
    }
    const started = performance.now();
    // The records come from the batch's own snapshot, so each pool ends exactly at the batch's head.
    const asked = [...this.entries].filter(([, entry]) => entry.pool !== undefined).map(([id]) => id);
    const { batch, records } = await this.store.catchUp(this.cursor, asked);
    if (batch.reset) {
      const dropped = this.invalidateAll();
      this.log.info({ event: "pools_reset", head: batch.head, dropped: dropped.length });
      this.cursor = batch.head;
      return dropped;
    }
    const byProject = new Map<string, StoreChange[]>();
    for (const change of batch.changes) {
      const list = byProject.get(change.project);
      if (list === undefined) byProject.set(change.project, [change]);
      else list.push(change);
    }
    const dropped: string[] = [];
    for (const [project, changes] of byProject) {
      const entry = this.entries.get(project);
      if (entry === undefined) continue;
      const work = plan(changes);
      // A pool that finished loading while the batch was read was not asked for: its records are not in it.
      if (work.rebuild || entry.pool === undefined || !asked.includes(project)) {
        this.forget(project);
        dropped.push(project);
        continue;
      }
      if (work.items.length === 0 && work.entries.length === 0) continue;
      const named = records.get(project) ?? { items: [], entries: [] };
      entry.pool.applyStored(work.items, named.items, work.entries, named.entries);
    }
    // Every pool still loaded holds what the store held at the head: the changes it names were applied above.
    for (const entry of this.entries.values()) entry.pool?.caughtUpTo(batch.head);
    if (batch.changes.length > 0) {
      this.log.debug({
        event: "pools_caught_up",
        changes: batch.changes.length,
        head: batch.head,
        dropped: dropped.length,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
    }
    this.cursor = batch.head;
    return dropped;
  }

  private async load(project: ProjectRecord): Promise<ProjectPool> {
    this.loadedProjects.set(project.id, project);
    const authored = await readAuthored(project, this.log);
    // The store's part is read after git, in one snapshot with the feed's head: the pool is exact for that seq,
    // which the packets it serves keep, however many processes write. Revocations and tombstones change only with
    // a `project` change, which drops the pool: read once per load.
    const snapshot = await this.store.readProject(project.id);
    const journal = toJournalRecords(snapshot.journal, this.log);
    return new ProjectPool(
      project,
      snapshot.items,
      journal,
      authored,
      this.log,
      snapshot.rules,
      snapshot.head,
    );
  }
}
