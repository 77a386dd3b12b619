// The digest of a pool's items for packet ids (decision 0016): the sum, modulo 2^256, of the SHA-256 of each item's
// JSON. A sum does not depend on the order the items came in, and one item's change moves it by a subtraction and
// an addition, so an index keeps it up to date without walking the pool.
import { createHash } from "node:crypto";
import { PoolIndex } from "@kxm/arbiter";
import type { ContextItem } from "@kxm/contract";
import { itemJson } from "./packet-json.js";

const MASK = (1n << 256n) - 1n;

/** Each item's hash, kept as long as the item object lives: every index holding the item shares it. */
const ITEM_HASH = new WeakMap<ContextItem, bigint>();

function itemHash(item: ContextItem): bigint {
  let hash = ITEM_HASH.get(item);
  if (hash === undefined) {
    hash = BigInt(`0x${createHash("sha256").update(itemJson(item)).digest("hex")}`);
    ITEM_HASH.set(item, hash);
  }
  return hash;
}

function hex(sum: bigint): string {
  return sum.toString(16).padStart(64, "0");
}

/** The digest of these items (64 hex digits), computed by walking them: for a pool assembled on the spot. */
export function poolDigest(items: Iterable<ContextItem>): string {
  let sum = 0n;
  for (const item of items) sum = (sum + itemHash(item)) & MASK;
  return hex(sum);
}

/**
 * A {@link PoolIndex} that keeps the digest of the items it holds up to date on every add, replace, upsert and
 * remove: `digest()` equals `poolDigest(this.items())` at all times, at the cost of one hash per changed item.
 */
export class DigestedIndex extends PoolIndex {
  private sum = 0n;
  /** The hash each held item was counted with, by id. */
  private readonly counted = new Map<string, bigint>();

  constructor(items: Iterable<ContextItem> = []) {
    super(items);
    for (const item of super.items()) this.count(item);
  }

  private count(item: ContextItem): void {
    const hash = itemHash(item);
    const old = this.counted.get(item.id);
    if (old !== undefined) this.sum = (this.sum - old) & MASK;
    this.counted.set(item.id, hash);
    this.sum = (this.sum + hash) & MASK;
  }

  private uncount(id: string): void {
    const old = this.counted.get(id);
    if (old === undefined) return;
    this.counted.delete(id);
    this.sum = (this.sum - old) & MASK;
  }

  override add(item: ContextItem): void {
    super.add(item);
    this.count(item);
  }

  override replace(item: ContextItem): void {
    super.replace(item);
    this.count(item);
  }

  override upsert(item: ContextItem): void {
    super.upsert(item);
    this.count(item);
  }

  override remove(id: string): boolean {
    const removed = super.remove(id);
    if (removed) this.uncount(id);
    return removed;
  }

  /** The digest of the items held now (64 hex digits). */
  digest(): string {
    return hex(this.sum);
  }
}
