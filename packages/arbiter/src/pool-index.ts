import {
  type AssembledPacket,
  type ContextItem,
  type ContextRequest,
  compareCodeUnits,
  KxmError,
  type RecallRequest,
  type RecallResult,
} from "@kxm/contract";
import type { AssembleOptions } from "./packet.js";
import { assembleFromIndex } from "./packet-walk.js";
import { duplicate, PoolColumns } from "./pool-columns.js";
import { IndexNearMisses } from "./pool-near-misses.js";
import { IndexRecall } from "./pool-recall.js";
import { Scorer } from "./pool-scoring.js";
import { resolveRecallRequest } from "./request.js";
import { type Analysis, checkAnalysis } from "./tokenize.js";

/** Options of a {@link PoolIndex} for its whole life. */
export interface PoolIndexOptions {
  /**
   * How text becomes tokens: `standard` (the default, docs/reference/behaviour.md section 1) or the opt-in
   * `english` (Porter2 stemming in place of plural folding). Fixed when the index is made: its postings hold the
   * profile's terms.
   */
  readonly analysis?: Analysis;
}

/**
 * An index over one project's pool (its own records and `_shared` defaults), built once and updated item by item,
 * so that serving a packet does not re-tokenize the pool. {@link PoolIndex.assemble} and {@link PoolIndex.recall}
 * give byte-identical results to {@link assemblePacket} and {@link recall} over the same items.
 *
 * What each item needs for ranking is computed when it enters and kept in typed columns (pool-columns.ts). Per
 * request, only items sharing a task token are scored (pool-scoring.ts; document frequencies are kept per kind as
 * items change), and the first-fit walk (packet-walk.ts) goes through the eligible set in the parts rank.ts's
 * order splits it into, ordering matched items only as far as it reaches and walking unmatched items in a static
 * order kept sorted; it stops as soon as nothing left could fit. The audit's near misses (pool-near-misses.ts)
 * and recall (pool-recall.ts) read the same columns.
 */
export class PoolIndex {
  private readonly columns: PoolColumns;
  private readonly scorer: Scorer;
  private readonly nearMisses: IndexNearMisses;
  private readonly recaller: IndexRecall;

  constructor(items: Iterable<ContextItem> = [], options: PoolIndexOptions = {}) {
    this.columns = new PoolColumns(checkAnalysis(options.analysis ?? "standard"));
    this.scorer = new Scorer(this.columns);
    this.nearMisses = new IndexNearMisses(this.columns, this.scorer);
    this.recaller = new IndexRecall(this.columns, this.scorer);
    // Bulk load: insert unsorted and stage the postings, then sort each ordered list once and make each postings
    // list once at its final length, instead of inserting into them item by item.
    for (const item of items) {
      if (this.columns.slotsById.has(item.id)) throw duplicate(item.id);
      this.columns.insert(item, true);
    }
    this.columns.finishBulk();
  }

  /** The analysis profile the index was made with. */
  get analysis(): Analysis {
    return this.columns.analysis;
  }

  /** How many items the index holds, live or not. */
  get size(): number {
    return this.columns.slotsById.size;
  }

  has(id: string): boolean {
    return this.columns.slotsById.has(id);
  }

  get(id: string): ContextItem | undefined {
    const slot = this.columns.slotsById.get(id);
    return slot === undefined ? undefined : this.columns.records[slot];
  }

  /** Every item, in id order. */
  items(): ContextItem[] {
    return [...this.columns.slotsById.keys()].sort(compareCodeUnits).map((id) => this.get(id)!);
  }

  /** Adds an item; an id already present is refused (`invalid_request`). */
  add(item: ContextItem): void {
    if (this.columns.slotsById.has(item.id)) throw duplicate(item.id);
    this.columns.insert(item, false);
  }

  /** Replaces the item with the same id; an unknown id is refused (`not_found`). */
  replace(item: ContextItem): void {
    if (!this.columns.remove(item.id))
      throw new KxmError("not_found", `the index holds no item with id "${item.id}"`);
    this.columns.insert(item, false);
  }

  /** Adds the item, or replaces the one with the same id. */
  upsert(item: ContextItem): void {
    this.columns.remove(item.id);
    this.columns.insert(item, false);
  }

  /** Removes an item by id; returns whether it was there. */
  remove(id: string): boolean {
    return this.columns.remove(id);
  }

  /**
   * Assembles a packet; the same result as `assemblePacket(this.items(), request, options)` with the index's
   * analysis. An `options.analysis` other than the index's is refused (`invalid_request`).
   */
  assemble(request: ContextRequest, options: AssembleOptions = {}): AssembledPacket {
    if (options.analysis !== undefined && checkAnalysis(options.analysis) !== this.columns.analysis) {
      throw new KxmError(
        "invalid_request",
        `this index analyses text as "${this.columns.analysis}", not "${options.analysis}": build another index`,
      );
    }
    return assembleFromIndex(this.columns, this.scorer, this.nearMisses, request, options);
  }

  /** Recalls records; the same result as `recall(this.items(), request, { analysis: this.analysis })`. */
  recall(request: RecallRequest): RecallResult {
    const resolved = resolveRecallRequest(request);
    this.columns.checkIsolation(resolved.project);
    return this.recaller.recall(resolved);
  }
}
