// Expiry and review dates in a pool: which items expire when, found in O(1) per request while none is due.
import { type ContextItem, compareCodeUnits } from "@kxm/contract";

/** At most this many `review_due:<id>` gaps per packet or recall; the rest are counted in one more gap. */
const MAX_REVIEW_DUE_GAPS = 16;

/**
 * The expiry times of a pool's items and the earliest of them. {@link due} answers without a walk while the
 * clock is before the earliest time, which is every request while nothing has expired; once it is reached, the
 * walk finds every item due, forgets them, and finds the next earliest time.
 */
export class ExpiryTracker {
  private readonly times = new Map<string, number>();
  /** No item expires before this (it may be earlier than any tracked time after a removal: then one walk fixes it). */
  private next = Number.POSITIVE_INFINITY;

  /**
   * Records the item's `expiresAt`, or forgets it when the item has none or is superseded or rejected (never served
   * anyway: the pool counts it as superseded, not as expired).
   */
  track(item: ContextItem): void {
    if (item.expiresAt === undefined || item.status === "superseded" || item.status === "rejected") {
      this.times.delete(item.id);
      return;
    }
    const at = Date.parse(item.expiresAt);
    this.times.set(item.id, at);
    if (at < this.next) this.next = at;
  }

  forget(id: string): void {
    this.times.delete(id);
  }

  /** The ids whose expiry is at or before `nowMs`, sorted, now forgotten; none without a walk when `nowMs` is early. */
  due(nowMs: number): string[] {
    if (nowMs < this.next) return [];
    const due: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [id, at] of this.times) {
      if (at <= nowMs) due.push(id);
      else if (at < next) next = at;
    }
    for (const id of due) this.times.delete(id);
    this.next = next;
    return due.sort(compareCodeUnits);
  }
}

/**
 * `review_due:<id>` per served item whose `reviewBy` is at or before `nowMs`, by id, at most
 * {@link MAX_REVIEW_DUE_GAPS}, then `review_due:+<n> more` for the rest.
 */
export function reviewDueGaps(items: Iterable<ContextItem | undefined>, nowMs: number): string[] {
  const ids: string[] = [];
  for (const item of items) {
    if (item?.reviewBy !== undefined && Date.parse(item.reviewBy) <= nowMs) ids.push(item.id);
  }
  ids.sort(compareCodeUnits);
  const gaps = ids.slice(0, MAX_REVIEW_DUE_GAPS).map((id) => `review_due:${id}`);
  if (ids.length > MAX_REVIEW_DUE_GAPS) gaps.push(`review_due:+${ids.length - MAX_REVIEW_DUE_GAPS} more`);
  return gaps;
}
