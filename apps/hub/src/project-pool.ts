// One project's pool: its store items, journal and authored memory, in one index per journal-category set.
import type { PoolIndex } from "@kxm/arbiter";
import {
  type ContextItem,
  compareCodeUnits,
  DEFAULT_ROLE_POLICY,
  JOURNAL_CATEGORIES,
  type JournalCategory,
  type JournalEntry,
  NAMED_ROLES,
  type PacketMemory,
  type ProjectRecord,
  ROLE_POLICIES,
  rolePolicy,
  type WithheldReason,
} from "@kxm/contract";
import { gitDirectories } from "@kxm/memory-git";
import { findContradictions, type StateContradiction, type WithholdRules } from "@kxm/state-store";
import type { FastifyBaseLogger } from "fastify";
import { type Authored, NO_CHECKOUT, readAuthored } from "./authored.js";
import { ExpiryTracker } from "./expiry.js";
import { type JournalRecord, toJournalRecord } from "./journal-records.js";
import { authoredSignature } from "./memory-signature.js";
import { DigestedIndex } from "./pool-digest.js";
import { NO_RULES, type WithheldItem, WithholdMatcher } from "./withheld.js";

/** The key of a set of journal categories: the categories in catalogue order, comma-separated. */
function categoryKey(categories: Iterable<JournalCategory>): string {
  const set = new Set(categories);
  return JOURNAL_CATEGORIES.filter((category) => set.has(category)).join(",");
}

/** The index every category goes into: recall and explain read the whole pool. */
const ALL = categoryKey(JOURNAL_CATEGORIES);

/** One index per distinct journal-category set of the role policies (the five roles and the default), plus ALL. */
const INDEX_KEYS: readonly string[] = [
  ...new Set([
    ...NAMED_ROLES.map((role) => categoryKey(ROLE_POLICIES[role].journalCategories)),
    categoryKey(DEFAULT_ROLE_POLICY.journalCategories),
    ALL,
  ]),
];

interface IndexSlot {
  readonly categories: ReadonlySet<string>;
  /** Keeps the digest of its items for packet ids, updated with every change (pool-digest.ts). */
  readonly index: DigestedIndex;
}

/** A change to a project's records as the store holds them now, applied to every index it affects. */
export type PoolChange =
  | { readonly kind: "items"; readonly items: readonly ContextItem[] }
  | { readonly kind: "journal"; readonly entry: JournalEntry };

/**
 * One project's pool, kept in memory and up to date: its stored items (superseded and rejected ones too, until
 * retention purges them), its retained journal entries as items,
 * and the authored memory and verified promoted skills of its own checkout. Each index holds the base items (store
 * and authored) plus the journal items of its categories, so a packet is assembled from an index that is never
 * rebuilt per request.
 */
export class ProjectPool {
  private readonly storeItems = new Map<string, ContextItem>();
  private readonly journal = new Map<string, JournalRecord>();
  private authored: Authored = NO_CHECKOUT;
  /** The authored items by id, for the lookups of a withheld-set update. */
  private authoredById = new Map<string, ContextItem>();
  private readonly slots = new Map<string, IndexSlot>();
  private refreshing: Promise<void> | undefined;
  /** The stat signature of the memory folders and the git files when `authored` was last confirmed. */
  private authoredSignature: string | undefined;
  /** The checkout's git folders, found at the last reload (undefined: not in a repository). */
  private gitDirs: { gitDir: string; commonDir: string } | undefined;
  /** Bumped by every item change: the open contradictions computed from the items are for one generation. */
  private itemGeneration = 0;
  private stateContradictions:
    | { readonly generation: number; readonly list: readonly StateContradiction[] }
    | undefined;
  /** The journal's contradiction ids in entry order, until the next journal write. */
  private journalContradictions: string[] | undefined;
  /**
   * Items withheld below the arbiter (revoked, forgotten: decision 0017; expired, check_failed: decision 0018),
   * kept out of every index: the indexes assemble from what may be served, exactly and fast. Always what the
   * matcher gives over the whole pool; {@link rewithhold} keeps it so change by change.
   */
  private readonly withheld = new Map<string, { item: ContextItem; reason: WithheldReason }>();
  private readonly matcher: WithholdMatcher;
  /** When each store and authored item expires: {@link withholdExpired} withholds them on time. */
  private readonly expiry = new ExpiryTracker();
  /**
   * The verdicts that come from time and checks, not from the rules (decision 0018): items past `expiresAt`, and
   * authored facts whose committed check failed with the withhold policy. Dropped when the item changes.
   */
  private readonly timed = new Map<string, "expired" | "check_failed">();
  /**
   * The `provenance.derivedFrom` edges of the pool reversed (ancestor id to the ids of the items naming it), and
   * each item's ancestors as indexed: a change recomputes the withheld set only for what derives from it.
   */
  private readonly dependants = new Map<string, Set<string>>();
  private readonly ancestors = new Map<string, readonly string[]>();

  /**
   * The change seq the pool's store records are exact for: every change up to it applied, none after it. A stored
   * packet keeps it, so a replay reads the records as of it (decision 0016).
   */
  private seq: number;

  constructor(
    readonly project: ProjectRecord,
    storeItems: readonly ContextItem[],
    journal: readonly JournalRecord[],
    authored: Authored,
    private readonly log: FastifyBaseLogger,
    rules: WithholdRules = NO_RULES,
    seq = 0,
  ) {
    this.seq = seq;
    for (const item of storeItems) this.storeItems.set(item.id, item);
    for (const record of journal) this.journal.set(record.item.id, record);
    this.setAuthored(authored);
    for (const item of this.storeItems.values()) this.expiry.track(item);
    for (const item of authored.items) this.expiry.track(item);
    for (const id of authored.checkFailed) this.timed.set(id, "check_failed");
    this.matcher = new WithholdMatcher(rules);
    // Before any index exists: the whole pool is the change, so the full recompute is the incremental one.
    this.rewithhold(new Set(this.allItems().map((item) => item.id)));
    for (const key of INDEX_KEYS) {
      const categories = new Set(key.split(","));
      const items = new Map<string, ContextItem>();
      for (const item of this.allBaseItems()) if (!this.withheld.has(item.id)) items.set(item.id, item);
      for (const { entry, item } of this.journal.values()) {
        if (categories.has(entry.category) && !this.withheld.has(item.id)) items.set(item.id, item);
      }
      this.slots.set(key, { categories, index: new DigestedIndex(items.values()) });
    }
  }

  /** The change seq the pool's store records are exact for (see the field). */
  get changeSeq(): number {
    return this.seq;
  }

  /**
   * Records that every change up to `seq` has reached the pool: the cache says so after a catch-up that read the
   * changes and their records in one go. Never moves back.
   */
  caughtUpTo(seq: number): void {
    if (seq > this.seq) this.seq = seq;
  }

  /** The gaps of the checkout's authored memory (withheld, malformed, unverified), for every packet and recall. */
  authoredGaps(): readonly string[] {
    return this.authored.gaps;
  }

  /** The audit's `memory` field: the commit and revision served and what was withheld; none without a checkout. */
  authoredMemory(): PacketMemory | undefined {
    return this.authored.memory;
  }

  /**
   * The withheld items that would otherwise be in a pool of these journal categories (every category when left
   * out), optionally only the journal items of one run and one stage, in id order.
   */
  withheldItems(
    categories?: readonly JournalCategory[],
    filter: { runId?: string; stage?: string } = {},
  ): WithheldItem[] {
    if (this.withheld.size === 0) return [];
    const wanted = categories === undefined ? undefined : new Set<string>(categories);
    const out: WithheldItem[] = [];
    for (const [id, entry] of this.withheld) {
      const record = this.journal.get(id);
      if (record !== undefined && !this.storeItems.has(id)) {
        if (wanted !== undefined && !wanted.has(record.entry.category)) continue;
        if (filter.runId !== undefined && record.entry.runId !== filter.runId) continue;
        if (filter.stage !== undefined && record.entry.stage !== filter.stage) continue;
      }
      out.push({ item: entry.item, reason: entry.reason });
    }
    return out.sort((a, b) => compareCodeUnits(a.item.id, b.item.id));
  }

  /** A withheld item of the pool by id with its reason (explain still finds it), or undefined. */
  withheldItem(id: string): WithheldItem | undefined {
    return this.withheld.get(id);
  }

  /** An authored fact or skill of the checkout by id, served or withheld, or undefined. */
  authoredItem(id: string): ContextItem | undefined {
    return this.authoredById.get(id);
  }

  private setAuthored(authored: Authored): void {
    this.authored = authored;
    this.authoredById = new Map(authored.items.map((item) => [item.id, item]));
  }

  /**
   * The record the withheld set is computed for under an id (a journal item, then a store item, then an authored
   * one, as {@link allItems} lists them), or undefined when the pool holds none.
   */
  private poolItem(id: string): ContextItem | undefined {
    return this.journal.get(id)?.item ?? this.storeItems.get(id) ?? this.authoredById.get(id);
  }

  /** Every item of the pool, served or withheld: base items, then journal items. */
  private allItems(): ContextItem[] {
    return [...this.allBaseItems(), ...[...this.journal.values()].map(({ item }) => item)];
  }

  /**
   * Withholds every item whose `expiresAt` is at or before `nowMs` (the hub's clock, at each packet, recall and
   * wiki read): O(1) while none is due.
   */
  withholdExpired(nowMs: number): void {
    const due = this.expiry.due(nowMs);
    if (due.length === 0) return;
    for (const id of due) this.timed.set(id, "expired");
    this.rewithhold(new Set(due));
  }

  /** Indexes the `derivedFrom` edges of the record now under `id` in place of those indexed before. */
  private reindex(id: string): void {
    const next = this.poolItem(id)?.provenance.derivedFrom ?? [];
    for (const ancestor of this.ancestors.get(id) ?? []) {
      const set = this.dependants.get(ancestor)!;
      set.delete(id);
      if (set.size === 0) this.dependants.delete(ancestor);
    }
    if (next.length === 0) this.ancestors.delete(id);
    else this.ancestors.set(id, next);
    for (const ancestor of next) {
      const set = this.dependants.get(ancestor);
      if (set === undefined) this.dependants.set(ancestor, new Set([id]));
      else set.add(id);
    }
  }

  /**
   * After a change to the records of `changed` (added, replaced, removed, or a timed verdict set or dropped),
   * applied to the indexes as if nothing were withheld: brings the withheld set to what a recompute over the whole
   * pool gives, takes every withheld item out of every index, and puts back the items no longer withheld.
   *
   * Only the changed ids and what derives from them, transitively, can change verdict: an item's verdict depends on
   * its own record and timed verdict and on its ancestors' (see {@link WithholdMatcher.withhold}), and the rules
   * do not change within a pool's life. So the matcher recomputes that region alone, each ancestor outside it
   * keeping its verdict: the cost follows the change, not the pool. A pool without an active rule, a timed
   * verdict or a withheld item does nothing here but index the edges.
   */
  private rewithhold(changed: ReadonlySet<string>): void {
    for (const id of changed) this.reindex(id);
    if (this.matcher.empty && this.timed.size === 0 && this.withheld.size === 0) return;
    const region = new Set(changed);
    const queue = [...region];
    while (queue.length > 0) {
      for (const dependant of this.dependants.get(queue.pop()!) ?? []) {
        if (region.has(dependant)) continue;
        region.add(dependant);
        queue.push(dependant);
      }
    }
    const items: ContextItem[] = [];
    for (const id of region) {
      const item = this.poolItem(id);
      if (item !== undefined) items.push(item);
    }
    // An ancestor outside the region keeps its verdict; one the pool no longer holds withholds only as a revoked
    // or forgotten id, as in a recompute over the whole pool.
    const verdicts = this.matcher.withhold(items, this.timed, (id) =>
      this.poolItem(id) === undefined ? this.matcher.absent(id) : this.withheld.get(id)?.reason,
    );
    let moved = false;
    for (const id of region) {
      const item = this.poolItem(id);
      const reason = item === undefined ? undefined : verdicts.get(id);
      const was = this.withheld.has(id);
      if (item !== undefined && reason !== undefined) {
        this.withheld.set(id, { item, reason });
        for (const slot of this.slots.values()) slot.index.remove(id);
        moved ||= !was;
      } else if (was) {
        this.withheld.delete(id);
        moved = true;
        if (item !== undefined) this.serve(id);
      }
    }
    // Open contradictions are found among served items only, so they follow the withheld set.
    if (moved) this.stateContradictions = undefined;
  }

  /** Puts an item no longer withheld back into every index that holds its kind of record. */
  private serve(id: string): void {
    const record = this.journal.get(id);
    const base = this.storeItems.get(id) ?? this.authoredItem(id);
    for (const slot of this.slots.values()) {
      if (base !== undefined) slot.index.upsert(base);
      else if (record !== undefined && slot.categories.has(record.entry.category))
        slot.index.upsert(record.item);
    }
  }

  /** Store items and authored memory and skills that may be served (nothing withheld): what every role reads. */
  baseItems(): ContextItem[] {
    const all = this.allBaseItems();
    return this.withheld.size === 0 ? all : all.filter((item) => !this.withheld.has(item.id));
  }

  /** Store items and authored memory and skills, withheld ones too. */
  private allBaseItems(): ContextItem[] {
    const byId = new Map<string, ContextItem>();
    for (const item of this.authored.items) byId.set(item.id, item);
    for (const item of this.storeItems.values()) byId.set(item.id, item);
    return [...byId.values()];
  }

  /**
   * Journal records in entry order (creation time, then id), whatever order they arrived in: another process's
   * entries come through the change feed in commit order.
   */
  journalRecords(): JournalRecord[] {
    return [...this.journal.values()].sort(
      (a, b) =>
        compareCodeUnits(a.entry.createdAt, b.entry.createdAt) || compareCodeUnits(a.entry.id, b.entry.id),
    );
  }

  /** The journal items of the categories a role reads, optionally only those of one run and one stage. */
  journalItems(categories: readonly JournalCategory[], filter: { runId?: string; stage?: string } = {}) {
    const wanted = new Set<string>(categories);
    return this.journalRecords()
      .filter(({ entry }) => wanted.has(entry.category))
      .filter(({ entry }) => filter.runId === undefined || entry.runId === filter.runId)
      .filter(({ entry }) => filter.stage === undefined || entry.stage === filter.stage)
      .filter(({ item }) => !this.withheld.has(item.id))
      .map(({ item }) => item);
  }

  /** Ids of the journal items of category `contradiction` that are served, in entry order. */
  private contradictionJournalIds(): string[] {
    this.journalContradictions ??= this.journalRecords()
      .filter(({ entry }) => entry.category === "contradiction")
      .map(({ item }) => item.id);
    return this.journalContradictions.filter((id) => !this.withheld.has(id));
  }

  /**
   * The open state contradictions among the served state items (more than one current value, or more than one
   * pending proposal, of a key), with the store's rule (`findContradictions`), once per item or withheld change:
   * the pool holds every state item the store does, so without a withheld item the answer equals the store's
   * without a read, which every process would otherwise repeat after every write on the database. A withheld
   * competitor does not count (decision 0017): a key left with one served value contradicts nothing.
   */
  private stateContradictionList(): readonly StateContradiction[] {
    if (this.stateContradictions?.generation !== this.itemGeneration) {
      const state = [...this.storeItems.values()].filter(
        (item) =>
          item.kind === "state" &&
          (item.status === "current" || item.status === "proposed") &&
          !this.withheld.has(item.id),
      );
      this.stateContradictions = { generation: this.itemGeneration, list: findContradictions(state) };
    }
    return this.stateContradictions.list;
  }

  /** The ids of every open contradiction the arbiter is given: the competing state items, then the journal's. */
  openContradictionIds(): string[] {
    return [
      ...this.stateContradictionList().flatMap((contradiction) => contradiction.itemIds),
      ...this.contradictionJournalIds(),
    ];
  }

  /** Open contradictions as the contradictions route and the wiki's records list them: the same as packets. */
  servedContradictions(): { state: StateContradiction[]; journal: string[] } {
    return {
      state: this.stateContradictionList().map(({ stateKey, itemIds }) => ({
        stateKey,
        itemIds: [...itemIds],
      })),
      journal: this.contradictionJournalIds(),
    };
  }

  /** The index serving a role's packets. */
  indexForRole(role: string): PoolIndex {
    return this.slots.get(categoryKey(rolePolicy(role).journalCategories))!.index;
  }

  /** The digest of the items of the index serving a role's packets, kept up to date by the index itself. */
  digestForRole(role: string): string {
    return this.slots.get(categoryKey(rolePolicy(role).journalCategories))!.index.digest();
  }

  /** The index holding the whole pool: every journal category, authored memory and skills. */
  wholeIndex(): PoolIndex {
    return this.slots.get(ALL)!.index;
  }

  /**
   * Brings the records a feed change names to what the store holds now: `items` and `entries` are the store's
   * current rows for `itemIds` and `entryIds`; an id the store no longer holds leaves the pool.
   */
  applyStored(
    itemIds: readonly string[],
    items: readonly ContextItem[],
    entryIds: readonly string[],
    entries: readonly JournalEntry[],
  ): void {
    const changed = new Set<string>();
    const foundItems = new Set(items.map((item) => item.id));
    const gone = itemIds.filter((id) => !foundItems.has(id) && this.storeItems.has(id));
    if (items.length > 0 || gone.length > 0) this.apply({ kind: "items", items }, changed);
    for (const id of gone) {
      this.storeItems.delete(id);
      this.expiry.forget(id);
      this.timed.delete(id);
      changed.add(id);
      for (const slot of this.slots.values()) slot.index.remove(id);
    }
    for (const entry of entries) this.apply({ kind: "journal", entry }, changed);
    const foundEntries = new Set(entries.map((entry) => entry.id));
    for (const id of entryIds) {
      if (foundEntries.has(id)) continue;
      for (const [itemId, record] of this.journal) {
        if (record.entry.id !== id) continue;
        this.journal.delete(itemId);
        this.journalContradictions = undefined;
        changed.add(itemId);
        for (const slot of this.slots.values()) slot.index.remove(itemId);
      }
    }
    this.rewithhold(changed);
  }

  /** Applies a write the store holds to every index it affects, adding the ids it changes to `changed`. */
  private apply(change: PoolChange, changed: Set<string>): void {
    if (change.kind === "items") {
      this.itemGeneration += 1;
      for (const item of change.items) {
        if (item.project !== this.project.id) continue;
        // Superseded and rejected items stay until retention purges them: the index counts them as
        // `excludedSuperseded`, exactly as the plain assembly over the store's items does.
        this.storeItems.set(item.id, item);
        this.expiry.track(item);
        this.timed.delete(item.id);
        changed.add(item.id);
        for (const slot of this.slots.values()) slot.index.upsert(item);
      }
      return;
    }
    const record = toJournalRecord(change.entry, this.log);
    if (record === undefined || record.entry.project !== this.project.id) return;
    this.journal.set(record.item.id, record);
    this.journalContradictions = undefined;
    changed.add(record.item.id);
    for (const slot of this.slots.values()) {
      if (slot.categories.has(record.entry.category)) slot.index.upsert(record.item);
    }
  }

  /**
   * Reloads authored memory and skills when what the checkout commits, or what it holds uncommitted, may have
   * changed. Every packet, recall and explain request asks; git is asked again only when a stat of the memory
   * folders or of the git files that move with a commit, a checkout, an amend or a staging differs from the last
   * confirmed one, or is too recent to trust (see {@link authoredSignature}). Concurrent callers share one reload.
   */
  async refreshAuthored(): Promise<void> {
    const root = this.project.checkoutRoot;
    if (root === null) return;
    if (this.refreshing === undefined && this.authoredSignature !== undefined) {
      const signature = authoredSignature(root, this.gitDirs);
      if (signature !== undefined && signature === this.authoredSignature) return;
    }
    this.refreshing ??= (async () => {
      try {
        this.gitDirs = await gitDirectories(root);
        // Taken before git is read: a change made while reading shows in the next signature.
        const signature = authoredSignature(root, this.gitDirs);
        const next = await readAuthored(this.project, this.log);
        // A read that failed is tried again by the next request.
        this.authoredSignature = next.key === undefined ? undefined : signature;
        if (next.key !== undefined && next.key === this.authored.key) return;
        const old = this.authored.items;
        this.setAuthored(next);
        const kept = new Set(next.items.map((item) => item.id));
        for (const item of old) {
          if (kept.has(item.id)) continue;
          this.expiry.forget(item.id);
          this.timed.delete(item.id);
        }
        const checkFailed = new Set(next.checkFailed);
        for (const item of next.items) {
          this.expiry.track(item);
          if (checkFailed.has(item.id)) this.timed.set(item.id, "check_failed");
          else this.timed.delete(item.id);
        }
        for (const slot of this.slots.values()) {
          for (const item of old) {
            // A store item never shares an authored id (`mem_`, `skill_`), so removal cannot drop one.
            if (!kept.has(item.id)) slot.index.remove(item.id);
          }
          for (const item of next.items) slot.index.upsert(item);
        }
        this.rewithhold(new Set([...old.map((item) => item.id), ...kept]));
      } finally {
        this.refreshing = undefined;
      }
    })();
    await this.refreshing;
  }
}
