import { type ContextItem, LIMITS } from "@kxm/contract";

/** What an item costs against the budget, in UTF-16 code units: summary, id, kind and source reference. */
export function itemCost(item: ContextItem): number {
  return item.summary.length + item.id.length + item.kind.length + (item.provenance.sourceRef?.length ?? 0);
}

/** Tokens for a number of characters: one ceiling over the whole set. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / LIMITS.charsPerToken);
}

/** What one item costs a packet on its own, in tokens: what a near miss reports and the inspector shows. */
export function itemTokens(item: ContextItem): number {
  return estimateTokens(itemCost(item));
}

/**
 * First-fit over candidates offered in rank order. An item is taken when the estimate of the selected set with it
 * stays within the budget; otherwise it is deferred and the walk goes on, until 256 items are selected.
 */
export class FirstFit<T> {
  readonly selected: T[] = [];
  chars = 0;
  private deferredCount = 0;
  private readonly capacity: number;

  constructor(readonly budgetTokens: number) {
    // ceil((chars + cost) / 4) <= budget  <=>  chars + cost <= 4 * budget, for integers.
    this.capacity = budgetTokens * LIMITS.charsPerToken;
  }

  /** Room left, in characters. */
  get room(): number {
    return this.capacity - this.chars;
  }

  get full(): boolean {
    return this.selected.length >= LIMITS.maxPacketItems;
  }

  /** Candidates offered and not taken, plus those counted by {@link defer}. */
  get deferred(): number {
    return this.deferredCount;
  }

  /**
   * Counts candidates as deferred without offering them: a caller that knows they cannot fit (each costs more than
   * the {@link room} left, which only shrinks) need not build them.
   */
  defer(count = 1): void {
    this.deferredCount += count;
  }

  /** Offers the next candidate; returns whether it was taken. Call only while not {@link full}. */
  offer(candidate: T, cost: number): boolean {
    if (cost <= this.room) {
      this.selected.push(candidate);
      this.chars += cost;
      return true;
    }
    this.deferredCount += 1;
    return false;
  }
}
